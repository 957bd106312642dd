import { log } from '@temporalio/workflow';
import { jsonBytes, type AgentDescription, type AgentRunInput, type RunContinuation } from '../src/protocol/index.js';
import type { AgentRunState } from './run-state.js';

// What a run carries into its next execution, and whether it fits: shared by every protocol's continue-as-new.

/** Events carried into the next execution on continue-as-new (older ones stay readable on the previous run). */
export const CARRIED_EVENTS = 1_000;

/**
 * Continue-as-new only while the next execution's input is well under Temporal's 2 MB payload limit (UTF-8 bytes of
 * its JSON; the margin covers payload metadata and codec overhead).
 */
export const MAX_CONTINUATION_BYTES = 1_500_000;

/**
 * What every continuation carries: the run's protocol, transcript, `events`, steps, usage, decisions, early
 * messages, listings. No tool call runs across continue-as-new, so no call of the next execution re-issues one of
 * this one: answers to MCP questions stay behind (protocol 4; see `legacyContinueAsNewIfPossible`).
 */
export function continuationOf(
  state: AgentRunState,
  description: AgentDescription,
  generation: number,
  events: RunContinuation['events'],
): RunContinuation {
  const routing = state.routing.carry();
  return {
    description,
    messages: state.messages,
    events,
    steps: state.steps,
    usage: state.usage,
    approvals: state.approvals.history(),
    earlyApprovals: state.approvals.early(),
    earlyToolResults: state.clientTools.early(),
    ...(state.listings().length > 0 ? { mcpListings: state.listings() } : {}),
    // Only routed runs carry it, so the input of runs without routing is what it was before.
    ...(routing ? { routing } : {}),
    generation,
    protocol: state.protocol,
  };
}

/**
 * The next execution's input, or undefined when it would be too large to start. The run's original input is left
 * out (it is in the first execution, and the transcript carries it), and the size is the UTF-8 bytes of the exact
 * argument.
 */
export function nextInput(input: AgentRunInput, continuation: RunContinuation): AgentRunInput | undefined {
  const next: AgentRunInput = { ...input, input: '', continuation };
  return jsonBytes(next) < MAX_CONTINUATION_BYTES ? next : undefined;
}

/** The run goes on in this execution, its state too large to carry: said once. */
export function tooLarge(state: AgentRunState): void {
  if (!state.continuationTooLarge) {
    state.continuationTooLarge = true;
    log.warn('Run state too large to continue as new; continuing in this execution', { step: state.steps.length });
  }
}
