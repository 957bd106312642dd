import { condition, patched } from '@temporalio/workflow';
import type { AgentRunState } from '../run-state.js';
import { LEGACY_PATCHES } from './patches.js';

// How runs on protocols 1–2 (v0.1.0–v0.3.0) run a step's tool calls where those releases differ from protocol 4.
// Each asks `patched()` exactly where the releases did, since a run that met newer code mid-way holds the marker
// from then on. Retired with protocol 2 (docs/upgrading.md).

/**
 * v0.2.0: a step with more calls than the agent's `toolConcurrency` runs at most that many at once; v0.1.0 scheduled
 * them all (asked only for such a step, as v0.2.0 did).
 */
export function legacyBoundsConcurrency(): boolean {
  return patched(LEGACY_PATCHES.boundedToolConcurrency);
}

/** v0.3.0: a call marked `local: true` runs as a local activity (asked only for such a call, as v0.3.0 did). */
export function legacyRunsLocally(): boolean {
  return patched(LEGACY_PATCHES.localTools);
}

/**
 * The wait of a call whose activity answered `elicitation-pending`, as v0.3.0 waited: until the question is
 * answered. Its expiry is the detached timer of the question's request (`workflows/legacy/elicitation.ts`).
 */
export async function legacyWaitForAnswer(state: AgentRunState, elicitationId: string): Promise<void> {
  await condition(() => state.elicitations.isAnswered(elicitationId));
}
