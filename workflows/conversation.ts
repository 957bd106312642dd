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
  type Refusal,
  type TranscriptMessage,
} from '../src/protocol/index.js';
import {
  CONVERSATION_LIMITS,
  DEFAULT_COMPACTION,
  compactionCut,
  conversationEndUpdate,
  conversationSendUpdate,
  conversationStateQuery,
  conversationStopUpdate,
  needsCompaction,
  summaryMessage,
  turnWorkflowId,
  userMessageOf,
  type ConversationCompaction,
  type ConversationContinuation,
  type ConversationInput,
  type ConversationMessage,
  type ConversationState,
  type QueuedTurn,
  type ResolvedCompaction,
} from '../src/protocol/conversation.js';
import { refusal, refuse } from './refusals.js';

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

/** What a conversation returns once it has ended: how many turns it took. */
export interface ConversationOutput {
  turns: number;
  completedTurns: number;
}

interface RunningTurn {
  turn: number;
  workflowId: string;
  scope: CancellationScope;
}

/**
 * One conversation with an agent: an entity workflow per conversation id, idle between turns. Each message is a turn,
 * run as a child `agentRun` on the conversation's transcript plus the message (so a turn is a run: its stream,
 * approvals and questions work as any run's); the turn's new messages, recorded by an activity that reads them from
 * the run's history, are appended to the transcript. Messages sent during a turn wait in order (bounded); an
 * interrupting one cancels the running turn and goes first. Between turns the workflow compacts its transcript
 * (a summary by the `summarizeConversation` activity, or keep-last-N) and continues as new once its history passes
 * the budget, carrying transcript, summary and queue. Deterministic: all it keeps is plain data.
 */
export async function durableAgentConversation(input: ConversationInput): Promise<ConversationOutput> {
  const carried = input.continuation;
  let transcript: TranscriptMessage[] = carried?.transcript ?? [];
  let summary = carried?.summary;
  let turns = carried?.turns ?? 0;
  let completedTurns = carried?.completedTurns ?? 0;
  let compactions = carried?.compactions ?? 0;
  let ending = carried?.ending ?? false;
  const queue: QueuedTurn[] = [...(carried?.queue ?? [])];
  let current: RunningTurn | undefined;
  const limits = { ...CONVERSATION_LIMITS, ...input.limits };
  const { conversationId } = input;

  const admission = (message: ConversationMessage): Refusal | undefined => {
    if (ending) {
      return {
        code: RefusalCode.ConversationEnded,
        message: `Conversation '${conversationId}' has ended: it takes no new message. Start another conversation id.`,
      };
    }
    if (!isMessage(message)) {
      return {
        code: RefusalCode.InputMalformed,
        message:
          'A message needs `content`: a string, or at most 64 user message parts (text, image or file, with ' +
          'string data). Send text, or files by URL or base64.',
      };
    }
    const bytes = jsonBytes(message);
    if (bytes > limits.maxMessageBytes) {
      return {
        code: RefusalCode.ConversationMessageTooLarge,
        message:
          `The message is ${bytes} bytes (UTF-8, as JSON), over this conversation's limit of ` +
          `${limits.maxMessageBytes}: send a shorter message, or attach large content by reference.`,
      };
    }
    const queued = jsonBytes(queue);
    if (queue.length >= limits.maxQueued || queued + bytes > limits.maxQueuedBytes) {
      return {
        code: RefusalCode.ConversationQueueFull,
        message:
          `${queue.length} messages (${queued} bytes) already wait for their turn in conversation ` +
          `'${conversationId}' (limits: ${limits.maxQueued} messages, ${limits.maxQueuedBytes} bytes): wait for ` +
          'the running turn to answer, or send with interrupt: true.',
      };
    }
    return undefined;
  };

  setHandler(
    conversationSendUpdate,
    async (message) => {
      const sender = message.userId;
      if (sender !== undefined && input.userId !== undefined && sender !== input.userId) {
        const { runId } = workflowInfo();
        const verdict = await authorizeConversationMessage({
          agentName: input.agentName,
          conversationId,
          ...(input.userId !== undefined ? { userId: input.userId } : {}),
          sender,
          ...(message.identity !== undefined ? { identity: message.identity } : {}),
          turn: turns + 1,
          workflowId: workflowInfo().workflowId,
          runId,
        });
        if (!verdict.allowed) {
          throw refusal({
            code: RefusalCode.ConversationNotAuthorized,
            message:
              `'${sender}' is not the user of conversation '${conversationId}', and the agent's authorizeDecision ` +
              `did not allow the message${verdict.reason ? `: ${verdict.reason}` : '.'}`,
          });
        }
        // The rules are checked again: the conversation may have ended, or its queue filled, meanwhile.
        const why = admission(message);
        if (why) throw refusal(why);
      }
      const turn = ++turns;
      const queued: QueuedTurn = {
        turn,
        message: userMessageOf(message.content),
        ...(sender !== undefined && sender !== input.userId ? { sender } : {}),
        ...(message.watched === true ? { watched: true as const } : {}),
      };
      if (message.interrupt) {
        queue.unshift(queued);
        current?.scope.cancel();
      } else {
        queue.push(queued);
      }
      const position = message.interrupt ? 0 : queue.length - 1 + (current ? 1 : 0);
      return { turn, workflowId: turnWorkflowId(conversationId, turn), position };
    },
    { validator: (message) => refuse(admission(message)) },
  );
  setHandler(conversationStopUpdate, () => {
    const running = current;
    running?.scope.cancel();
    return running?.turn;
  });
  setHandler(conversationEndUpdate, () => {
    ending = true;
  });
  setHandler(
    conversationStateQuery,
    (): ConversationState => ({
      conversationId,
      agentName: input.agentName,
      ...(input.userId !== undefined ? { userId: input.userId } : {}),
      status: current ? 'running' : ending ? 'ending' : 'idle',
      ...(current ? { currentTurn: { turn: current.turn, workflowId: current.workflowId } } : {}),
      queued: queue.map(({ turn }) => ({ turn, workflowId: turnWorkflowId(conversationId, turn) })),
      turns,
      completedTurns,
      transcriptMessages: transcript.length,
      transcriptBytes: jsonBytes(transcript),
      hasSummary: summary !== undefined,
      compactions,
      generation: carried?.generation ?? 0,
    }),
  );

  // The agent's compaction settings, asked once per conversation (a local activity, recorded) and carried.
  const compaction: ResolvedCompaction =
    carried?.compaction ??
    resolveCompaction(input.compaction, await describeConversation({ agentName: input.agentName }));

  const continuation = (): ConversationContinuation => ({
    transcript,
    ...(summary !== undefined ? { summary } : {}),
    turns,
    queue: [...queue],
    completedTurns,
    compactions,
    ending,
    compaction,
    generation: (carried?.generation ?? 0) + 1,
  });

  // The turn count at which the state was too large to continue as new: tried again after the next turn only.
  let tooLargeAt: number | undefined;
  const continueAsNewDue = () => tooLargeAt !== completedTurns && shouldContinueAsNew(limits.historyEventBudget);
  for (;;) {
    if (continueAsNewDue()) {
      // Between turns: no child runs, and every send accepted so far is in the queue once its handler has returned.
      await condition(allHandlersFinished);
      const next: ConversationInput = { ...input, continuation: continuation() };
      // Bounded by compaction and the queue's bytes; a larger state (limits raised past Temporal's) stays here.
      if (jsonBytes(next) < MAX_CONTINUATION_BYTES) {
        await continueAsNew<typeof durableAgentConversation>(next);
      }
      if (tooLargeAt === undefined) {
        log.warn('Conversation state too large to continue as new; continuing in this execution');
      }
      tooLargeAt = completedTurns;
    }
    await condition(() => queue.length > 0 || ending || continueAsNewDue());
    if (queue.length === 0) {
      if (!ending) continue;
      await condition(allHandlersFinished);
      if (queue.length === 0) return { turns, completedTurns };
      continue;
    }
    if (needsCompaction(transcript, compaction)) {
      const compacted = await compact(input, transcript, summary, compaction);
      if (compacted) {
        ({ transcript, summary } = compacted);
        compactions++;
      }
    }
    const next = queue.shift()!;
    const workflowId = turnWorkflowId(conversationId, next.turn);
    const runInput = turnInput(input, next, transcript, summary);
    const scope = new CancellationScope();
    current = { turn: next.turn, workflowId, scope };
    let outcome: 'completed' | 'cancelled' | 'failed';
    let output: AgentRunOutput | undefined;
    try {
      output = await scope.run(() =>
        executeChild<(input: AgentRunInput) => Promise<AgentRunOutput>>(AGENT_RUN_WORKFLOW, {
          workflowId,
          ...(input.taskQueue !== undefined ? { taskQueue: input.taskQueue } : {}),
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          memo: { agent: input.agentName, conversationId, turn: next.turn },
          args: [runInput],
        }),
      );
      outcome = 'completed';
    } catch (err) {
      // The conversation itself was cancelled (not one turn by stop or interrupt): it ends.
      if (CancellationScope.current().consideredCancelled) throw err;
      outcome = isCancellation(err) ? 'cancelled' : 'failed';
      if (outcome === 'failed') log.warn('A conversation turn failed', { turn: next.turn, error: String(err) });
    } finally {
      current = undefined;
    }
    let added: TranscriptMessage[];
    try {
      const record = await conversationTurnMessages({
        conversationId,
        turn: next.turn,
        workflowId,
        outcome,
        message: next.message,
        inputCount: (runInput.input as TranscriptMessage[]).length,
        ...(output ? { messageCount: output.messageCount } : {}),
      });
      added = record.messages;
    } catch (err) {
      if (isCancellation(err)) throw err;
      // The turn's messages could not be read back: the conversation goes on with the user's message alone.
      log.error('Could not record a conversation turn; only its message is kept', {
        turn: next.turn,
        error: String(err),
      });
      added = [next.message];
    }
    transcript = [...transcript, ...added];
    completedTurns++;
  }
}

/** The agent's settings under the conversation's own: the conversation's fields win, then the agent's, then defaults. */
function resolveCompaction(
  own: ConversationCompaction | undefined,
  agent: ConversationCompaction & { summarize: boolean },
): ResolvedCompaction {
  const pick = (key: keyof ConversationCompaction): number => {
    const value = own?.[key] ?? agent[key] ?? DEFAULT_COMPACTION[key];
    return Number.isFinite(value) && value >= 0 ? Math.floor(value) : DEFAULT_COMPACTION[key];
  };
  return {
    triggerMessages: pick('triggerMessages'),
    triggerBytes: pick('triggerBytes'),
    keepMessages: Math.max(1, pick('keepMessages')),
    summarize: agent.summarize,
  };
}

/**
 * Older turns out of the transcript: summarized (with the previous summary) by the `summarizeConversation` activity
 * when the agent has a summarizer, else dropped (keep-last-N). A summarizer that keeps failing falls back to dropping,
 * so a conversation is never stuck on it. Undefined when nothing can be cut (one long turn).
 */
async function compact(
  input: ConversationInput,
  transcript: TranscriptMessage[],
  summary: string | undefined,
  compaction: ResolvedCompaction,
): Promise<{ transcript: TranscriptMessage[]; summary: string | undefined } | undefined> {
  const cut = compactionCut(transcript, compaction.keepMessages);
  if (cut === 0) return undefined;
  let next = summary;
  if (compaction.summarize) {
    try {
      const result = await summarizeConversation({
        agentName: input.agentName,
        conversationId: input.conversationId,
        ...(summary !== undefined ? { summary } : {}),
        messages: transcript.slice(0, cut),
      });
      next = result.summary ?? summary;
    } catch (err) {
      if (isCancellation(err)) throw err;
      log.warn('Summarizing the conversation failed; older turns are dropped instead', { error: String(err) });
    }
  }
  return { transcript: transcript.slice(cut), summary: next };
}

/** A turn's run input: the summary, the transcript and the new message; conversation, user and turn in its context. */
function turnInput(
  input: ConversationInput,
  queued: QueuedTurn,
  transcript: TranscriptMessage[],
  summary: string | undefined,
): AgentRunInput {
  return {
    ...input.turn,
    agentName: input.agentName,
    input: [...(summary !== undefined ? [summaryMessage(summary)] : []), ...transcript, queued.message],
    conversationId: input.conversationId,
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
    context: {
      ...input.context,
      conversationId: input.conversationId,
      ...(input.userId !== undefined ? { userId: input.userId } : {}),
      turn: queued.turn,
      ...(queued.sender !== undefined ? { sender: queued.sender } : {}),
    },
    // Only turns sent watched carry it, so the runs of earlier histories start with the same input.
    ...(queued.watched ? { streaming: { watched: true } } : {}),
  };
}

function shouldContinueAsNew(budget: number): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= budget;
}

/** Parts of one message, at most. */
const MAX_PARTS = 64;

/**
 * A well-formed message: text, or user content parts (text, image, file) a model accepts. Anything else is refused
 * before it is queued: a part the model call rejects would fail that turn and, kept in the transcript, every next one.
 */
function isMessage(message: unknown): message is ConversationMessage {
  if (typeof message !== 'object' || message === null) return false;
  const { content, userId, interrupt, watched } = message as Partial<ConversationMessage>;
  if (userId !== undefined && typeof userId !== 'string') return false;
  if (interrupt !== undefined && typeof interrupt !== 'boolean') return false;
  if (watched !== undefined && typeof watched !== 'boolean') return false;
  if (typeof content === 'string') return true;
  if (!Array.isArray(content) || content.length === 0 || content.length > MAX_PARTS) return false;
  return content.every(isUserPart);
}

function isUserPart(part: unknown): boolean {
  if (typeof part !== 'object' || part === null) return false;
  const { type, text, image, data, mediaType } = part as Record<string, unknown>;
  if (type === 'text') return typeof text === 'string';
  if (type === 'image') return typeof image === 'string' && (mediaType === undefined || typeof mediaType === 'string');
  if (type === 'file') return typeof data === 'string' && typeof mediaType === 'string';
  return false;
}
