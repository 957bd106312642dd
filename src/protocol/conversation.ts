// The `durableAgentConversation` workflow's protocol: its input, what it carries over continue-as-new, its updates
// and queries, its limits, and the pure functions the workflow and the clients share (compaction's cut, message
// bytes, turn workflow ids). Workflow-safe: only @temporalio/workflow's definitions and other protocol modules.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { jsonBytes } from './bytes.js';
import type { JsonValue } from './json.js';
import type { TranscriptMessage } from './messages.js';

/** The conversation workflow's type name. */
export const CONVERSATION_WORKFLOW = 'durableAgentConversation';

/** Bounds of a conversation; each can be lowered or raised per conversation (`ConversationOptions.limits`). */
export const CONVERSATION_LIMITS = {
  /** Messages waiting for their turn (the running turn not counted). */
  maxQueued: 32,
  /** UTF-8 bytes of one message as JSON. */
  maxMessageBytes: 256 * 1024,
  /** Continue-as-new between turns once the execution's history has this many events. */
  historyEventBudget: 2_000,
  /** UTF-8 bytes of all waiting messages together (the queue is carried over continue-as-new, in one payload). */
  maxQueuedBytes: 1024 * 1024,
  /** UTF-8 bytes of one turn's new messages kept in the transcript: a larger turn keeps its final answer only. */
  maxTurnBytes: 512 * 1024,
  /**
   * Whatever `triggerBytes` says, the transcript is compacted past this many bytes: it travels in every turn's input
   * and in the next execution's, each one payload under Temporal's 2 MB.
   */
  maxTranscriptBytes: 1024 * 1024,
} as const;

/** When the transcript is compacted, and how much of it stays verbatim (VoltAgent's `summarization` shape). */
export interface ConversationCompaction {
  /** Compact before a turn when the transcript holds more messages than this. Default 40. */
  triggerMessages?: number;
  /** Compact before a turn when the transcript's UTF-8 bytes (as JSON) pass this. Default 200 KB. */
  triggerBytes?: number;
  /** Messages kept verbatim (the newest; the cut never splits a turn). Default 10. */
  keepMessages?: number;
}

export const DEFAULT_COMPACTION: Required<ConversationCompaction> = {
  triggerMessages: 40,
  triggerBytes: 200 * 1024,
  keepMessages: 10,
};

/** Per-conversation limits (see {@link CONVERSATION_LIMITS}). */
export interface ConversationLimits {
  maxQueued?: number;
  maxQueuedBytes?: number;
  maxMessageBytes?: number;
  historyEventBudget?: number;
}

/** What every turn's run gets besides its messages (see `AgentRunInput`). */
export interface ConversationTurnOptions {
  maxSteps?: number;
  approvalTimeoutMs?: number;
  elicitationTimeoutMs?: number;
  historyEventBudget?: number;
}

/** Input of the `durableAgentConversation` workflow. Stored in history: no secrets. */
export interface ConversationInput {
  conversationId: string;
  agentName: string;
  /** The conversation's user, fixed at creation: messages from anyone else need the agent's `authorizeDecision`. */
  userId?: string;
  /** Given to every turn's run as its `context` (with `conversationId`, `userId` and `turn` added). */
  context?: Record<string, JsonValue>;
  limits?: ConversationLimits;
  compaction?: ConversationCompaction;
  turn?: ConversationTurnOptions;
  /** Task queue of the turns' runs. Default: the conversation's. */
  taskQueue?: string;
  /** Set by the workflow itself when it continues as new. */
  continuation?: ConversationContinuation;
}

/** A message waiting for its turn. */
export interface QueuedTurn {
  turn: number;
  message: TranscriptMessage;
  /** Who sent it, when it was not the conversation's user (authorized by the agent). */
  sender?: string;
  /** Its sender watches the turn's stream from the start (`ConversationMessage.watched`). */
  watched?: true;
}

/** What a conversation carries into its next execution. */
export interface ConversationContinuation {
  /** What the model sees of the past: the summary (if any) is not in here but in `summary`. */
  transcript: TranscriptMessage[];
  summary?: string;
  /** Turns numbered so far (queued ones included). */
  turns: number;
  queue: QueuedTurn[];
  /** Turns that ran to the end, were cancelled, or failed. */
  completedTurns: number;
  compactions: number;
  ending: boolean;
  /** The compaction settings resolved at the conversation's start (its own over the agent's over the defaults). */
  compaction: ResolvedCompaction;
  generation: number;
  /**
   * The conversation's run protocol (`workflows/protocol.ts`), decided by its first execution and carried. Continuations
   * written before it was carried lack it: the next execution decides it from its history.
   */
  protocol?: number;
}

/** Compaction settings as a conversation applies them; `summarize`: the agent has a summarizer. */
export type ResolvedCompaction = Required<ConversationCompaction> & { summarize: boolean };

/** The `describeConversation` local activity's answer: the agent's `summarization`, as plain data. */
export type ConversationAgentSettings = ConversationCompaction & { summarize: boolean };

/** A message sent to a conversation. */
export interface ConversationMessage {
  /** The user's message: text, or a user message's content parts. */
  content: Extract<TranscriptMessage, { role: 'user' }>['content'];
  /** Cancel the running turn and answer this one next. Default: wait in the queue. */
  interrupt?: boolean;
  /** Who sends it. Default: the conversation's user. */
  userId?: string;
  /** Evidence of the sender's identity for the agent's `authorizeDecision` hook. Stored in history: no secrets. */
  identity?: JsonValue;
  /**
   * The sender watches the turn's stream from its start (the HTTP handler does): its run starts with
   * `streaming: { watched: true }`, so its first step publishes its first piece at once.
   */
  watched?: boolean;
}

/** The send update's answer: the turn's number and its run's workflow id (the run may not have started yet). */
export interface ConversationSendResult {
  turn: number;
  workflowId: string;
  /** Turns ahead of it (0: it starts now, or is running). */
  position: number;
}

/** How a conversation is doing, as its state query answers. */
export interface ConversationState {
  conversationId: string;
  agentName: string;
  userId?: string;
  status: 'idle' | 'running' | 'ending';
  /** The running turn, if any. */
  currentTurn?: { turn: number; workflowId: string };
  queued: { turn: number; workflowId: string }[];
  turns: number;
  completedTurns: number;
  /** Messages the model sees from the past (the summary aside). */
  transcriptMessages: number;
  transcriptBytes: number;
  hasSummary: boolean;
  compactions: number;
  generation: number;
}

/** Input of the `conversationTurnMessages` activity: which turn ended, how, and what it was given. */
export interface ConversationTurnRecordInput {
  conversationId: string;
  turn: number;
  workflowId: string;
  outcome: 'completed' | 'cancelled' | 'failed';
  /** The user's message of the turn (recorded again in the result, where history readers find it). */
  message: TranscriptMessage;
  /** Messages of the run's input (its transcript holds the system prompt, these, then the turn's new messages). */
  inputCount: number;
  /** The run's final message count (from its result), when it completed. */
  messageCount?: number;
}

/** A turn as recorded in the conversation's history: the user's message then what the agent added. */
export interface ConversationTurnRecord {
  turn: number;
  outcome: 'completed' | 'cancelled' | 'failed';
  messages: TranscriptMessage[];
  /** The turn's new messages were larger than `maxTurnBytes`: only its final answer is kept. */
  trimmed?: boolean;
}

/** Input of the `summarizeConversation` activity. */
export interface SummarizeConversationInput {
  agentName: string;
  conversationId: string;
  /** The summary so far, which the new one replaces. */
  summary?: string;
  messages: TranscriptMessage[];
}

/** The `summarizeConversation` activity's answer: no summary when the agent has no summarizer (keep-last-N). */
export interface SummarizeConversationResult {
  summary?: string;
}

/** Input of the `authorizeConversationMessage` local activity: a message from someone else than the user. */
export interface AuthorizeConversationMessageInput {
  agentName: string;
  conversationId: string;
  userId?: string;
  sender: string;
  identity?: JsonValue;
  turn: number;
  workflowId: string;
  runId: string;
}

/** A page of a conversation's messages. */
export interface ConversationHistoryPage {
  messages: (TranscriptMessage & { turn: number })[];
  /** Pass to the next `history()` call; absent on the last page. */
  nextCursor?: string;
}

export const conversationSendUpdate = defineUpdate<ConversationSendResult, [ConversationMessage]>(
  'durable-agent.conversation.send',
);
/** Cancels the running turn, if any; answers its number. The conversation stays. */
export const conversationStopUpdate = defineUpdate<number | undefined, []>('durable-agent.conversation.stop');
/** Refuses new messages from now on; queued turns still run, then the conversation completes. */
export const conversationEndUpdate = defineUpdate<void, []>('durable-agent.conversation.end');
export const conversationStateQuery = defineQuery<ConversationState>('durable-agent.conversation.state');

/** The workflow id of a conversation's turn `turn`: known when the message is queued, before the run starts. */
export function turnWorkflowId(conversationId: string, turn: number): string {
  return `${conversationId}/turn-${turn}`;
}

/** The marker that opens the summary message the model sees (VoltAgent's `<agent_summary>`). */
export const SUMMARY_TAG = 'conversation_summary';

/** The system message carrying a conversation's summary to the model. */
export function summaryMessage(summary: string): TranscriptMessage {
  return { role: 'system', content: `<${SUMMARY_TAG}>\n${summary}\n</${SUMMARY_TAG}>` };
}

/** True for the summary message (so a reader tells it from the agent's system prompt). */
export function isSummaryMessage(message: TranscriptMessage | undefined): boolean {
  return message?.role === 'system' && message.content.startsWith(`<${SUMMARY_TAG}>`);
}

/** The user message a sent message becomes. */
export function userMessageOf(content: ConversationMessage['content']): TranscriptMessage {
  return { role: 'user', content } as TranscriptMessage;
}

/**
 * Where compaction cuts a transcript: the index of the first message kept, so that at least `keep` messages stay
 * and the kept part starts at a user message (a turn's start: no tool result is kept without its call). 0 means
 * nothing can be cut.
 */
export function compactionCut(transcript: readonly TranscriptMessage[], keep: number): number {
  for (let i = Math.max(0, transcript.length - Math.max(1, keep)); i > 0; i--) {
    if (transcript[i]?.role === 'user') return i;
  }
  return 0;
}

/** True when the transcript should be compacted before the next turn. */
export function needsCompaction(
  transcript: readonly TranscriptMessage[],
  compaction: Required<ConversationCompaction>,
): boolean {
  const bytes = jsonBytes(transcript);
  return (
    transcript.length > compaction.triggerMessages ||
    bytes > Math.min(compaction.triggerBytes, CONVERSATION_LIMITS.maxTranscriptBytes)
  );
}
