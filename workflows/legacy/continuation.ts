import { allHandlersFinished, condition, continueAsNew, patched } from '@temporalio/workflow';
import type { AgentDescription, AgentRunInput, RunContinuation } from '../../src/protocol/index.js';
import type { agentRun } from '../agent-run.js';
import { CARRIED_EVENTS, MAX_CONTINUATION_BYTES, continuationOf, nextInput, tooLarge } from '../continuation-input.js';
import type { AgentRunState } from '../run-state.js';
import { LEGACY_PATCHES } from './patches.js';

/**
 * Continue-as-new of a run on protocol 1–2 (v0.1.0–v0.3.0; no stream), as those releases did it: the continuation
 * also carries the answers to MCP questions, and a v0.1.0 history measures it as v0.1.0 did (`legacyNextInput`).
 * Retired with protocol 2 (docs/upgrading.md).
 */
export async function legacyContinueAsNewIfPossible(
  state: AgentRunState,
  input: AgentRunInput,
  description: AgentDescription,
): Promise<void> {
  await condition(allHandlersFinished);
  const generation = (input.continuation?.generation ?? 0) + 1;
  const answers = state.elicitations.records();
  const continuation = {
    ...continuationOf(state, description, generation, [
      ...state.events.tail(CARRIED_EVENTS - 1),
      state.events.preview({ type: 'continued-as-new', generation }),
    ]),
    ...(answers.length > 0 ? { elicitations: answers } : {}),
  };
  const next = legacyNextInput(input, continuation);
  if (next) {
    state.events.emit({ type: 'continued-as-new', generation });
    await continueAsNew<typeof agentRun>(next);
  }
  tooLarge(state);
}

/**
 * Since v0.2.0 (`continueAsNewBytes`, asked at continue-as-new as released) the next input is measured in UTF-8 bytes
 * without the run's original input; v0.1.0 measured the continuation alone in UTF-16 units, so a 1.2 MB input, or
 * outputs of multi-byte characters, made an argument Temporal refused.
 */
function legacyNextInput(input: AgentRunInput, continuation: RunContinuation): AgentRunInput | undefined {
  if (!patched(LEGACY_PATCHES.continueAsNewBytes)) {
    return JSON.stringify(continuation).length < MAX_CONTINUATION_BYTES ? { ...input, continuation } : undefined;
  }
  return nextInput(input, continuation);
}
