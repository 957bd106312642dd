/**
 * Every patch id the agent loop passes to `patched()`. A run whose history predates a patch replays without its
 * marker and keeps the released behaviour; new runs take the new one. See docs/upgrading.md for when a change needs
 * a patch and how a patch is retired. Never reuse or rename an id.
 */
export const PATCHES = {
  /**
   * v0.2.0: at most `toolConcurrency` tool activities of one step run at once (v0.1.0 scheduled every call of a step
   * at once, and a response with thousands of calls exceeded Temporal's 2,000 pending activities).
   */
  boundedToolConcurrency: 'durable-agent.bounded-tool-concurrency',
  /**
   * v0.2.0, decided once at the start of a run: what clients send is bounded and bound to what they saw. A decision
   * must echo its request's token; decisions for requests not made yet are kept only when the agent allows early
   * decisions (at most 64); decision fields and signalled tool results are size-bounded. v0.1.0 accepted any
   * decision by tool-call id, kept every early one, and any tool result a signal carried.
   */
  boundedClientInput: 'durable-agent.bounded-client-input',
  /**
   * v0.2.0: continue-as-new measures the UTF-8 bytes of the exact next input, and leaves the run's original input
   * out of it (v0.1.0 measured the continuation in UTF-16 units and carried the input again).
   */
  continueAsNewBytes: 'durable-agent.continue-as-new-bytes',
  /**
   * v0.3.0: a call whose checked options say `local: true` runs its tool as a local activity. Only calls carrying the
   * new field take this path, so earlier histories replay unchanged; the patch covers a rolling deploy, where an
   * older workflow worker scheduled a regular activity for a call a newer `generate` marked local.
   */
  localTools: 'durable-agent.local-tools',
  /**
   * v0.4.0: a run that ends (completed, failed, cancelled) records its final event log and state once, in its memo
   * (`workflows/final-record.ts`), so that a client reads them with no worker. Runs that ended on earlier code have
   * no such command in their history.
   */
  finalEventRecord: 'durable-agent.final-event-record',
} as const;
