import { allHandlersFinished, condition, continueAsNew, log, workflowInfo } from '@temporalio/workflow';
import {
  DEFAULT_HISTORY_EVENT_BUDGET,
  type AgentDescription,
  type AgentRunInput,
  type RunContinuation,
} from '../src/protocol/index.js';
import type { agentRun } from './agent-run.js';
import type { AgentRunState } from './run-state.js';

/** Events carried into the next execution on continue-as-new (older ones stay readable on the previous run). */
const CARRIED_EVENTS = 1_000;

/** Continue-as-new only while the carried state is well under Temporal's 2 MB payload limit. */
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
  await condition(allHandlersFinished);
  const generation = (input.continuation?.generation ?? 0) + 1;
  const continuation: RunContinuation = {
    description,
    messages: state.messages,
    events: [...state.events.tail(CARRIED_EVENTS - 1), state.events.preview({ type: 'continued-as-new', generation })],
    steps: state.steps,
    usage: state.usage,
    approvals: state.approvals.history(),
    earlyApprovals: state.approvals.early(),
    earlyToolResults: state.clientTools.early(),
    generation,
  };
  if (JSON.stringify(continuation).length < MAX_CONTINUATION_BYTES) {
    state.events.emit({ type: 'continued-as-new', generation });
    await continueAsNew<typeof agentRun>({ ...input, continuation });
  }
  if (!state.continuationTooLarge) {
    state.continuationTooLarge = true;
    log.warn('Run state too large to continue as new; continuing in this execution', { step: state.steps.length });
  }
}
