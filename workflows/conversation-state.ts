import {
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
  needsCompaction,
  summaryMessage,
  turnWorkflowId,
  userMessageOf,
  type AuthorizeConversationMessageInput,
  type ConversationAgentSettings,
  type ConversationCompaction,
  type ConversationContinuation,
  type ConversationInput,
  type ConversationMessage,
  type ConversationSendResult,
  type ConversationState,
  type ConversationTurnRecordInput,
  type QueuedTurn,
  type ResolvedCompaction,
} from '../src/protocol/conversation.js';
import { isConversationMessage } from './conversation-message.js';

/** What a conversation returns once it has ended: how many turns it took. */
export interface ConversationOutput {
  turns: number;
  completedTurns: number;
}

/** The turn whose run is in flight; `cancel` cancels that run (the workflow passes its cancellation scope's). */
export interface RunningTurn {
  turn: number;
  workflowId: string;
  cancel: () => void;
}

/** A turn taken from the queue: its message, its run's workflow id and input. */
export interface TurnStart {
  queued: QueuedTurn;
  workflowId: string;
  input: AgentRunInput;
}

/** Older messages to compact away: everything before `cut`, summarized or dropped. */
export interface CompactionPlan {
  cut: number;
  older: TranscriptMessage[];
}

/** How a turn's run ended, as the turn record says it. */
export type TurnOutcome = ConversationTurnRecordInput['outcome'];

/**
 * Everything a conversation knows, and its rules: who may send what (admission), the queue (in order; an interrupt
 * goes first and cancels the running turn), stop and end, when to compact and what, and what continue-as-new carries.
 * Plain data and pure methods: the workflow registers message handlers that delegate here and runs the loop (child
 * runs, activities, waits); it is unit-tested without a server. Handlers change state only from the state they
 * expect, so a message replayed in the same order leaves the same state.
 */
export class ConversationEntityState {
  readonly conversationId: string;
  readonly limits: Readonly<Record<keyof typeof CONVERSATION_LIMITS, number>>;
  /** Which execution of the conversation this is (0 for the first; +1 at each continue-as-new). */
  readonly generation: number;
  /** What the model sees of the past, after the summary. */
  transcript: TranscriptMessage[];
  summary: string | undefined;
  /** Turns numbered so far, queued ones included. */
  turns: number;
  /** Turns that ran to the end, were cancelled, or failed, and were recorded. */
  completedTurns: number;
  compactions: number;
  /** Set by `end`: no new message is taken; the queue still runs, then the conversation completes. */
  ending: boolean;
  /** Messages waiting for their turn, in the order they run. */
  readonly queue: QueuedTurn[];
  /** Resolved once per conversation (`resolveCompaction`) before the first turn, then carried. */
  compaction: ResolvedCompaction | undefined;
  private running: RunningTurn | undefined;
  /** The completed-turn count at which the state was too large to continue as new: tried again after a turn. */
  private tooLargeAt: number | undefined;

  /**
   * `protocol`: the run protocol this execution follows (`runProtocol()`, decided before anything else and carried).
   * No rule of a conversation depends on it yet; it is carried so that every execution keeps its first one.
   */
  constructor(
    private readonly input: ConversationInput,
    readonly protocol: number,
  ) {
    const carried = input.continuation;
    this.conversationId = input.conversationId;
    this.limits = { ...CONVERSATION_LIMITS, ...input.limits };
    this.generation = carried?.generation ?? 0;
    this.transcript = carried?.transcript ?? [];
    this.summary = carried?.summary;
    this.turns = carried?.turns ?? 0;
    this.completedTurns = carried?.completedTurns ?? 0;
    this.compactions = carried?.compactions ?? 0;
    this.ending = carried?.ending ?? false;
    this.queue = [...(carried?.queue ?? [])];
    this.compaction = carried?.compaction;
  }

  /** The running turn, if any. */
  get current(): RunningTurn | undefined {
    return this.running;
  }

  /** Why a message is refused (ended, malformed, too large, queue full), or nothing: it may be queued. */
  admission(message: ConversationMessage): Refusal | undefined {
    const { conversationId, limits, queue } = this;
    if (this.ending) {
      return {
        code: RefusalCode.ConversationEnded,
        message: `Conversation '${conversationId}' has ended: it takes no new message. Start another conversation id.`,
      };
    }
    if (!isConversationMessage(message)) {
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
  }

  /**
   * What the agent's `authorizeDecision` hook is asked about a message from someone other than the conversation's
   * user; nothing when the message needs no authorization (its sender is the user, or either is unnamed).
   */
  authorization(message: ConversationMessage, run: { workflowId: string; runId: string }) {
    const sender = message.userId;
    const { userId, agentName } = this.input;
    if (sender === undefined || userId === undefined || sender === userId) return undefined;
    const request: AuthorizeConversationMessageInput = {
      agentName,
      conversationId: this.conversationId,
      userId,
      sender,
      ...(message.identity !== undefined ? { identity: message.identity } : {}),
      turn: this.turns + 1,
      ...run,
    };
    return request;
  }

  /** Numbers an admitted message and queues it: last, or, with `interrupt`, first, cancelling the running turn. */
  accept(message: ConversationMessage): ConversationSendResult {
    const sender = message.userId;
    const turn = ++this.turns;
    const queued: QueuedTurn = {
      turn,
      message: userMessageOf(message.content),
      ...(sender !== undefined && sender !== this.input.userId ? { sender } : {}),
      ...(message.watched === true ? { watched: true as const } : {}),
    };
    if (message.interrupt) {
      this.queue.unshift(queued);
      this.running?.cancel();
    } else {
      this.queue.push(queued);
    }
    const position = message.interrupt ? 0 : this.queue.length - 1 + (this.running ? 1 : 0);
    return { turn, workflowId: turnWorkflowId(this.conversationId, turn), position };
  }

  /** Cancels the running turn, if any, and answers its number. The queue and the conversation stay. */
  stop(): number | undefined {
    const running = this.running;
    running?.cancel();
    return running?.turn;
  }

  /** No new message from now on; queued turns still run. */
  end(): void {
    this.ending = true;
  }

  /** The state query's answer. */
  snapshot(): ConversationState {
    const { conversationId, running } = this;
    const { agentName, userId } = this.input;
    return {
      conversationId,
      agentName,
      ...(userId !== undefined ? { userId } : {}),
      status: running ? 'running' : this.ending ? 'ending' : 'idle',
      ...(running ? { currentTurn: { turn: running.turn, workflowId: running.workflowId } } : {}),
      queued: this.queue.map(({ turn }) => ({ turn, workflowId: turnWorkflowId(conversationId, turn) })),
      turns: this.turns,
      completedTurns: this.completedTurns,
      transcriptMessages: this.transcript.length,
      transcriptBytes: jsonBytes(this.transcript),
      hasSummary: this.summary !== undefined,
      compactions: this.compactions,
      generation: this.generation,
    };
  }

  /** The conversation's own compaction settings over the agent's, once: carried settings are kept. */
  resolveCompaction(agent: ConversationAgentSettings): ResolvedCompaction {
    this.compaction ??= resolveCompaction(this.input.compaction, agent);
    return this.compaction;
  }

  /** What to compact before the next turn: nothing when under the triggers, or when no turn can be cut. */
  compactionPlan(): CompactionPlan | undefined {
    const compaction = this.resolved();
    if (!needsCompaction(this.transcript, compaction)) return undefined;
    const cut = compactionCut(this.transcript, compaction.keepMessages);
    return cut === 0 ? undefined : { cut, older: this.transcript.slice(0, cut) };
  }

  /** Applies a plan: the older messages leave the transcript; `summary` (the summarizer's, if any) replaces it. */
  compacted(plan: CompactionPlan, summary: string | undefined): void {
    this.transcript = this.transcript.slice(plan.cut);
    this.summary = summary ?? this.summary;
    this.compactions++;
  }

  /** Takes the next queued turn and marks it running; `cancel` cancels its run. Nothing when the queue is empty. */
  startTurn(cancel: () => void): TurnStart | undefined {
    const queued = this.queue.shift();
    if (!queued) return undefined;
    const workflowId = turnWorkflowId(this.conversationId, queued.turn);
    this.running = { turn: queued.turn, workflowId, cancel };
    return { queued, workflowId, input: this.turnInput(queued) };
  }

  /** The running turn's run has ended (a stop or interrupt from now on finds nothing to cancel). */
  turnEnded(): void {
    this.running = undefined;
  }

  /** What the `conversationTurnMessages` activity is asked about an ended turn. */
  recordRequest(
    start: TurnStart,
    outcome: TurnOutcome,
    output: AgentRunOutput | undefined,
  ): ConversationTurnRecordInput {
    return {
      conversationId: this.conversationId,
      turn: start.queued.turn,
      workflowId: start.workflowId,
      outcome,
      message: start.queued.message,
      inputCount: (start.input.input as TranscriptMessage[]).length,
      ...(output ? { messageCount: output.messageCount } : {}),
    };
  }

  /** A turn's new messages (its user message first) join the transcript; the turn counts as completed. */
  recordTurn(messages: TranscriptMessage[]): void {
    this.transcript = [...this.transcript, ...messages];
    this.completedTurns++;
  }

  /**
   * Whether to continue as new now: the history passed its budget (or Temporal suggests it), unless the state was
   * found too large at this very turn count (then it is tried again after the next turn).
   */
  continueAsNewDue(history: { continueAsNewSuggested: boolean; historyLength: number }): boolean {
    if (this.tooLargeAt === this.completedTurns) return false;
    return history.continueAsNewSuggested || history.historyLength >= this.limits.historyEventBudget;
  }

  /** The state was too large to continue as new; true the first time (to say so once). */
  continuationTooLarge(): boolean {
    const first = this.tooLargeAt === undefined;
    this.tooLargeAt = this.completedTurns;
    return first;
  }

  /** What the next execution starts from. */
  continuation(): ConversationContinuation {
    return {
      transcript: this.transcript,
      ...(this.summary !== undefined ? { summary: this.summary } : {}),
      turns: this.turns,
      queue: [...this.queue],
      completedTurns: this.completedTurns,
      compactions: this.compactions,
      ending: this.ending,
      compaction: this.resolved(),
      generation: this.generation + 1,
      protocol: this.protocol,
    };
  }

  output(): ConversationOutput {
    return { turns: this.turns, completedTurns: this.completedTurns };
  }

  /** A turn's run input: the summary, the transcript and the new message; conversation, user and turn in context. */
  private turnInput(queued: QueuedTurn): AgentRunInput {
    const { input, summary } = this;
    const { conversationId, userId } = input;
    return {
      ...input.turn,
      agentName: input.agentName,
      input: [...(summary !== undefined ? [summaryMessage(summary)] : []), ...this.transcript, queued.message],
      conversationId,
      ...(userId !== undefined ? { userId } : {}),
      context: {
        ...input.context,
        conversationId,
        ...(userId !== undefined ? { userId } : {}),
        turn: queued.turn,
        ...(queued.sender !== undefined ? { sender: queued.sender } : {}),
      },
      // Only turns sent watched carry it, so the runs of earlier histories start with the same input.
      ...(queued.watched ? { streaming: { watched: true } } : {}),
    };
  }

  private resolved(): ResolvedCompaction {
    if (!this.compaction) throw new Error('The conversation compaction settings are resolved before its first turn.');
    return this.compaction;
  }
}

/** The agent's settings under the conversation's own: the conversation's fields win, then the agent's, then defaults. */
export function resolveCompaction(
  own: ConversationCompaction | undefined,
  agent: ConversationAgentSettings,
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
