import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  AGENT_RUN_WORKFLOW,
  RefusalCode,
  jsonBytes,
  type AgentRunInput,
  type AgentRunOutput,
  type TranscriptMessage,
} from '../src/protocol/index.js';
import {
  conversationEndUpdate,
  conversationSendUpdate,
  conversationStateQuery,
  conversationStopUpdate,
  type ConversationInput,
} from '../src/protocol/conversation.js';
import {
  ConversationEntityState,
  type CompactionPlan,
  type ConversationOutput,
  type TurnOutcome,
  type TurnStart,
} from './conversation-state.js';
import { runProtocol } from './protocol.js';
import { refusal, refuse } from './refusals.js';

export type { ConversationOutput } from './conversation-state.js';

type Activities = ReturnType<typeof createActivities>;

/** The next execution's input stays well under Temporal's 2 MB payload limit (UTF-8 bytes of its JSON). */
const MAX_CONTINUATION_BYTES = 1_500_000;

const { conversationTurnMessages } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 20 },
});
const { summarizeConversation } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2s', maximumInterval: '1 minute', maximumAttempts: 5 },
});
const { authorizeConversationMessage, describeConversation } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5 },
});

/**
 * One conversation with an agent: an entity workflow per conversation id, idle between turns. Each message is a turn,
 * run as a child `agentRun` on the conversation's transcript plus the message (so a turn is a run: its stream,
 * approvals and questions work as any run's); the turn's new messages, recorded by an activity that reads them from
 * the run's history, are appended to the transcript. The rules (admission, queue, interrupt, stop, end, compaction,
 * what continue-as-new carries) live in {@link ConversationEntityState}; this function registers the handlers that
 * delegate to it, then runs the loop: compact, run the next turn, record it, continue as new past the budget.
 */
export async function durableAgentConversation(input: ConversationInput): Promise<ConversationOutput> {
  // The first thing an execution decides (a marker and the memo in the first task), before any handler runs.
  const conversation = new ConversationEntityState(input, runProtocol(input.continuation));

  setHandler(
    conversationSendUpdate,
    async (message) => {
      const { workflowId, runId } = workflowInfo();
      const request = conversation.authorization(message, { workflowId, runId });
      if (request) {
        const verdict = await authorizeConversationMessage(request);
        if (!verdict.allowed) {
          throw refusal({
            code: RefusalCode.ConversationNotAuthorized,
            message:
              `'${request.sender}' is not the user of conversation '${input.conversationId}', and the agent's ` +
              `authorizeDecision did not allow the message${verdict.reason ? `: ${verdict.reason}` : '.'}`,
          });
        }
        // The rules are checked again: the conversation may have ended, or its queue filled, meanwhile.
        refuse(conversation.admission(message));
      }
      return conversation.accept(message);
    },
    { validator: (message) => refuse(conversation.admission(message)) },
  );
  setHandler(conversationStopUpdate, () => conversation.stop());
  setHandler(conversationEndUpdate, () => conversation.end());
  setHandler(conversationStateQuery, () => conversation.snapshot());

  // The agent's compaction settings, asked once per conversation (a local activity, recorded) and carried.
  if (!conversation.compaction) {
    conversation.resolveCompaction(await describeConversation({ agentName: input.agentName }));
  }

  const continueAsNewDue = () => conversation.continueAsNewDue(workflowInfo());
  for (;;) {
    if (continueAsNewDue()) {
      // Between turns: no child runs, and every send accepted so far is in the queue once its handler has returned.
      await condition(allHandlersFinished);
      const next: ConversationInput = { ...input, continuation: conversation.continuation() };
      // Bounded by compaction and the queue's bytes; a larger state (limits raised past Temporal's) stays here.
      if (jsonBytes(next) < MAX_CONTINUATION_BYTES) {
        await continueAsNew<typeof durableAgentConversation>(next);
      }
      if (conversation.continuationTooLarge()) {
        log.warn('Conversation state too large to continue as new; continuing in this execution');
      }
    }
    await condition(() => conversation.queue.length > 0 || conversation.ending || continueAsNewDue());
    if (conversation.queue.length === 0) {
      if (!conversation.ending) continue;
      await condition(allHandlersFinished);
      if (conversation.queue.length === 0) return conversation.output();
      continue;
    }
    const plan = conversation.compactionPlan();
    if (plan) conversation.compacted(plan, await summarize(input, conversation, plan));
    await runTurn(input, conversation);
  }
}

/**
 * Runs the next queued turn as a child run and records its new messages. A stop or interrupt cancels the turn's
 * scope (the turn ends `cancelled`); a cancelled conversation ends here.
 */
async function runTurn(input: ConversationInput, conversation: ConversationEntityState): Promise<void> {
  const scope = new CancellationScope();
  const start = conversation.startTurn(() => scope.cancel())!;
  const { queued, workflowId } = start;
  let outcome: TurnOutcome;
  let output: AgentRunOutput | undefined;
  try {
    output = await scope.run(() =>
      executeChild<(input: AgentRunInput) => Promise<AgentRunOutput>>(AGENT_RUN_WORKFLOW, {
        workflowId,
        ...(input.taskQueue !== undefined ? { taskQueue: input.taskQueue } : {}),
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        memo: { agent: input.agentName, conversationId: input.conversationId, turn: queued.turn },
        args: [start.input],
      }),
    );
    outcome = 'completed';
  } catch (err) {
    // The conversation itself was cancelled (not one turn by stop or interrupt): it ends.
    if (CancellationScope.current().consideredCancelled) throw err;
    outcome = isCancellation(err) ? 'cancelled' : 'failed';
    if (outcome === 'failed') log.warn('A conversation turn failed', { turn: queued.turn, error: String(err) });
  } finally {
    conversation.turnEnded();
  }
  conversation.recordTurn(await turnMessages(conversation, start, outcome, output));
}

/** The turn's new messages, read back from its run; the user's message alone when they cannot be. */
async function turnMessages(
  conversation: ConversationEntityState,
  start: TurnStart,
  outcome: TurnOutcome,
  output: AgentRunOutput | undefined,
): Promise<TranscriptMessage[]> {
  try {
    return (await conversationTurnMessages(conversation.recordRequest(start, outcome, output))).messages;
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.error('Could not record a conversation turn; only its message is kept', {
      turn: start.queued.turn,
      error: String(err),
    });
    return [start.queued.message];
  }
}

/**
 * The summary that replaces the older messages, by the `summarizeConversation` activity when the agent has a
 * summarizer; undefined keeps the previous summary (keep-last-N). A summarizer that keeps failing falls back to
 * dropping, so a conversation is never stuck on it.
 */
async function summarize(
  input: ConversationInput,
  conversation: ConversationEntityState,
  plan: CompactionPlan,
): Promise<string | undefined> {
  if (!conversation.compaction?.summarize) return undefined;
  try {
    const { summary } = conversation;
    const result = await summarizeConversation({
      agentName: input.agentName,
      conversationId: input.conversationId,
      ...(summary !== undefined ? { summary } : {}),
      messages: plan.older,
    });
    return result.summary;
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('Summarizing the conversation failed; older turns are dropped instead', { error: String(err) });
    return undefined;
  }
}
