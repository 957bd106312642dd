import { allHandlersFinished, condition, continueAsNew, log, workflowInfo } from '@temporalio/workflow';
import {
  DEFAULT_HISTORY_EVENT_BUDGET,
  jsonBytes,
  type AgentDescription,
  type AgentRunInput,
} from '../src/protocol/index.js';
import type { agentRun } from './agent-run.js';
import { CARRIED_EVENTS, MAX_CONTINUATION_BYTES, continuationOf, nextInput, tooLarge } from './continuation-input.js';
import { legacyContinueAsNewIfPossible } from './legacy/continuation.js';
import { CARRIED_ITEMS } from './run-stream.js';
import type { AgentRunState } from './run-state.js';

/** True when the run's history is long enough to start afresh: Temporal suggests it, or the event budget is spent. */
export function shouldContinueAsNew(input: AgentRunInput): boolean {
  const info = workflowInfo();
  return (
    info.continueAsNewSuggested || info.historyLength >= (input.historyEventBudget ?? DEFAULT_HISTORY_EVENT_BUDGET)
  );
}

/**
 * Continues the run as a new execution carrying its protocol, transcript, events (a bounded tail: sequence numbers go
 * on from it, so clients that keep up miss nothing), steps, usage, decisions, early messages and its stream. Never
 * returns when it continues (Temporal ends this execution by throwing `ContinueAsNew`). When the carried state would
 * be too large to start the next execution, it returns and the run goes on in this one (history grows, but the run
 * is not stuck), saying so once.
 *
 * The stream's polls park until the log grows, so they must be detached before handlers can all finish; detaching
 * refuses new polls, so it happens only once the next input is known to fit (measured with the `continued-as-new`
 * event as it will be). The event is published before the stream state is taken, so watchers following the run see
 * it, then the next execution's items at the following offsets.
 */
export async function continueAsNewIfPossible(
  state: AgentRunState,
  input: AgentRunInput,
  description: AgentDescription,
): Promise<void> {
  if (state.protocol < 4) return await legacyContinueAsNewIfPossible(state, input, description);
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
