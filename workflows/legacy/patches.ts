/**
 * The patch ids of released versions before the run protocol (v0.2.0, v0.3.0). Histories of v0.1.0–v0.3.0 runs carry
 * or lack their markers, so legacy code (this folder) still asks `patched()` for them where those releases did, and
 * only there: an execution on protocol 4 never asks (it follows every one of them). Never reuse or rename an id.
 * Retired with the protocols that need them (docs/upgrading.md).
 */
export const LEGACY_PATCHES = {
  /**
   * v0.2.0, decided once at the start of each execution: what clients send is bounded and bound to what they saw (a
   * decision echoes its request's token, early decisions only when the agent allows them, at most 64; sizes bounded).
   * Its marker in a first task is what makes a history protocol 2 (`legacyProtocol`).
   */
  boundedClientInput: 'durable-agent.bounded-client-input',
  /**
   * v0.2.0, per step: at most `toolConcurrency` tool activities of one step run at once (v0.1.0 scheduled every call
   * of a step at once). Asked per step by released code, so a v0.1.0 run that met v0.2.0 code mid-way holds it.
   */
  boundedToolConcurrency: 'durable-agent.bounded-tool-concurrency',
  /**
   * v0.2.0, at continue-as-new: the UTF-8 bytes of the exact next input are measured and the run's original input
   * left out (v0.1.0 measured the continuation in UTF-16 units and carried the input again).
   */
  continueAsNewBytes: 'durable-agent.continue-as-new-bytes',
  /**
   * v0.3.0, per call: a call whose checked options say `local: true` runs its tool as a local activity (a rolling
   * deploy could have had an older workflow worker schedule a regular activity for a call a newer `generate` marked).
   */
  localTools: 'durable-agent.local-tools',
} as const;
