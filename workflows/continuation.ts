import { allHandlersFinished, condition, continueAsNew, log, patched, workflowInfo } from '@temporalio/workflow';
import {
  DEFAULT_HISTORY_EVENT_BUDGET,
  jsonBytes,
  type AgentDescription,
  type AgentRunInput,
  type RunContinuation,
} from '../src/protocol/index.js';
import type { agentRun } from './agent-run.js';
import { PATCHES } from './patches.js';
import { CARRIED_ITEMS } from './run-stream.js';
import type { AgentRunState } from './run-state.js';

/** Events carried into the next execution on continue-as-new (older ones stay readable on the previous run). */
const CARRIED_EVENTS = 1_000;

/**
 * Continue-as-new only while the next execution's input is well under Temporal's 2 MB payload limit (UTF-8 bytes of
 * its JSON; the margin covers payload metadata and codec overhead).
 */
const MAX_CONTINUATION_BYTES = 1_500_000;

/** True when the run's history is long enough to start afresh: Temporal suggests it, or the event budget is spent. */
export function shouldContinueAsNew(input: AgentRunInput): boolean {
  const info = workflowInfo();
  return (
    info.continueAsNewSuggested || info.historyLength >= (input.historyEventBudget ?? DEFAULT_HISTORY_EVENT_BUDGET)
  );
}

/**
 * Continues the run as a new execution carrying its transcript, events (a bounded tail: sequence numbers go on from
 * it, so clients that keep up miss nothing), steps, usage, decisions and early messages. Never returns when it
 * continues (Temporal ends this execution by throwing `ContinueAsNew`). When the carried state would be too large
 * to start the next execution, it returns and the run goes on in this one (history grows, but the run is not
 * stuck), saying so once.
 */
export async function continueAsNewIfPossible(
  state: AgentRunState,
  input: AgentRunInput,
  description: AgentDescription,
): Promise<void> {
  if (state.stream) return await continueStreamedIfPossible(state, input, description);
  await condition(allHandlersFinished);
  const generation = (input.continuation?.generation ?? 0) + 1;
  const continuation = continuationOf(state, description, generation, [
    ...state.events.tail(CARRIED_EVENTS - 1),
    state.events.preview({ type: 'continued-as-new', generation }),
  ]);
  const next = nextInput(input, continuation);
  if (next) {
    state.events.emit({ type: 'continued-as-new', generation });
    await continueAsNew<typeof agentRun>(next);
  }
  tooLarge(state);
}

/**
 * Continue-as-new of a run with a stream. Its stream's polls park until the log grows, so they must be detached
 * before handlers can all finish; detaching refuses new polls, so it happens only once the next input is known to
 * fit (measured with the `continued-as-new` event as it will be). The event is published before the stream state
 * is taken, so watchers following the run see it, then the next execution's items at the following offsets.
 */
async function continueStreamedIfPossible(
  state: AgentRunState,
  input: AgentRunInput,
  description: AgentDescription,
): Promise<void> {
  const stream = state.stream!;
  const generation = (input.continuation?.generation ?? 0) + 1;
  const build = (items: number): AgentRunInput | undefined => {
    const events = state.events.tail(CARRIED_EVENTS);
    return nextInput(input, { ...continuationOf(state, description, generation, events), stream: stream.carry(items) });
  };
  // Room for the event: one more item of about its size in the events and (base64 of a Payload) in the stream.
  const marker = jsonBytes(state.events.preview({ type: 'continued-as-new', generation }));
  const fits = (next: AgentRunInput | undefined) =>
    next !== undefined && jsonBytes(next) + 4 * marker < MAX_CONTINUATION_BYTES;
  // The stream's items repeat the carried events (as base64 Payloads): when both do not fit, carry fewer items (a
  // watcher further behind is told it missed them) rather than stay in an execution whose history keeps growing.
  const items = [CARRIED_ITEMS, CARRIED_ITEMS / 4, 0].find((count) => fits(build(count)));
  if (items !== undefined) {
    stream.detach();
    await condition(allHandlersFinished);
    state.events.emit({ type: 'continued-as-new', generation });
    const next = build(items);
    if (next) await continueAsNew<typeof agentRun>(next);
    // Handlers that ran while the polls drained made it too large after all: the run goes on with its stream.
    stream.reattach();
    log.warn('Run state grew too large while continuing as new; continuing in this execution');
  }
  tooLarge(state);
}

/** What every continuation carries: transcript, `events`, steps, usage, decisions, early messages, listings. */
function continuationOf(
  state: AgentRunState,
  description: AgentDescription,
  generation: number,
  events: RunContinuation['events'],
): RunContinuation {
  const routing = state.routing.carry();
  // No tool call runs across continue-as-new, so no call of the next execution re-issues one of this one: since
  // v0.4.0 its answers stay behind (they grew every continuation without bound).
  const answers = state.elicitations.records();
  const carriedAnswers = answers.length > 0 && patched(PATCHES.elicitationUpdate) ? [] : answers;
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
    ...(carriedAnswers.length > 0 ? { elicitations: carriedAnswers } : {}),
    // Only routed runs carry it, so the input of runs without routing is what it was before.
    ...(routing ? { routing } : {}),
    generation,
  };
}

function tooLarge(state: AgentRunState): void {
  if (!state.continuationTooLarge) {
    state.continuationTooLarge = true;
    log.warn('Run state too large to continue as new; continuing in this execution', { step: state.steps.length });
  }
}

/**
 * The next execution's input, or undefined when it would be too large to start. Since v0.2.0 the run's original
 * input is left out (it is in the first execution, and the transcript carries it), and the size is the UTF-8 bytes
 * of the exact argument; v0.1.0 measured the continuation alone in UTF-16 units, so a 1.2 MB input, or outputs of
 * multi-byte characters, made an argument Temporal refused, failing the workflow task in a loop.
 */
function nextInput(input: AgentRunInput, continuation: RunContinuation): AgentRunInput | undefined {
  if (!patched(PATCHES.continueAsNewBytes)) {
    return JSON.stringify(continuation).length < MAX_CONTINUATION_BYTES ? { ...input, continuation } : undefined;
  }
  const next: AgentRunInput = { ...input, input: '', continuation };
  return jsonBytes(next) < MAX_CONTINUATION_BYTES ? next : undefined;
}
