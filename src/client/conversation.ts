import { setTimeout as delay } from 'node:timers/promises';
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, type Payload, type SerializationContext } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import { ApplicationFailure } from '@temporalio/common';
import { REFUSAL_CODES, RefusalCode, type JsonValue } from '../protocol/index.js';
import {
  CONVERSATION_WORKFLOW,
  conversationEndUpdate,
  conversationSendUpdate,
  conversationStateQuery,
  conversationStopUpdate,
  turnWorkflowId,
  type ConversationCompaction,
  type ConversationHistoryPage,
  type ConversationInput,
  type ConversationLimits,
  type ConversationMessage,
  type ConversationSendResult,
  type ConversationState,
  type ConversationTurnOptions,
  type ConversationTurnRecord,
} from '../protocol/conversation.js';
import { AgentRun, type AgentRunOptions, type AgentRunResult, type DecisionOptions } from './agent-run.js';
import { RunRequestRejectedError } from './errors/run-request-rejected-error.js';
import { nextRunId } from './history/run-chain.js';
import type { HistoryEvent } from './history/transcript-from-history.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, throughWorker } from './through-worker.js';
import type { RunStreamOptions, RunStreamPart } from './run-stream.js';
import type { ApprovalRecord, ElicitationContent, ElicitationRecord, RunEvent, RunState } from '../protocol/index.js';
import type { TranscriptMessage } from '../protocol/index.js';

/** Bounds a walk along a corrupt chain of executions. */
const MAX_EXECUTIONS = 100_000;

/** Options of `AgentClient.conversation`. Used when the first `send` creates the conversation; later ones ignore them. */
export interface ConversationOptions {
  /** The agent that answers. */
  agent: string;
  /** The conversation's user, fixed at creation; `send` sends as this user unless told otherwise. */
  userId?: string;
  /** Given to every turn's run as its `context` (plus `conversationId`, `userId`, `turn`). Stored in history. */
  context?: Record<string, JsonValue>;
  /** Queue, message size and history budget (see `CONVERSATION_LIMITS`). */
  limits?: ConversationLimits;
  /** When the transcript is compacted and how much stays (over the agent's `summarization`). */
  compaction?: ConversationCompaction;
  /** Every turn's run settings (step budget, approval timeout, …). */
  turn?: ConversationTurnOptions;
  /** Task queue of the conversation and its turns. Default: the client's. */
  taskQueue?: string;
  /** Temporal options of the conversation workflow (`memo`, `searchAttributes`, `workflowExecutionTimeout`, …). */
  workflow?: Partial<Omit<WorkflowStartOptions, 'args' | 'workflowId' | 'taskQueue'>>;
}

/** Options of {@link Conversation.send}. */
export interface SendOptions {
  /** Cancel the running turn (its tools and model call see the cancellation) and answer this message next. */
  interrupt?: boolean;
  /** Who sends it, when not the conversation's user: let in only if the agent's `authorizeDecision` allows it. */
  userId?: string;
  /** Evidence of the sender's identity for `authorizeDecision`. Stored in history: no secrets. */
  identity?: JsonValue;
  /**
   * The sender's id of this message (a chat page's message id): a send retried with the same id (a lost response, a
   * client's retry) is the same turn, not a second one, while the conversation's execution that took it runs.
   */
  messageId?: string;
  /**
   * The caller watches the turn's stream from its start (as `AgentClient.streamText` does a run's): the turn's first
   * step publishes its first piece at once instead of first finding a watcher.
   */
  watched?: boolean;
}

/**
 * A durable conversation with an agent: one Temporal workflow per conversation id (`durableAgentConversation`),
 * which runs each message as a turn (an agent run, child of the conversation) on the transcript so far. The first
 * {@link send} creates it (update-with-start): two first messages sent at once make one conversation with two turns.
 */
export class Conversation {
  private readonly requestTimeoutMs: number;

  constructor(
    private readonly client: Client,
    /** The conversation id: its workflow id. */
    readonly id: string,
    private readonly options: ConversationOptions,
    private readonly taskQueue: string,
    private readonly runOptions: AgentRunOptions = {},
  ) {
    this.requestTimeoutMs = runOptions.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /**
   * Sends a message: creates the conversation if it does not exist yet, queues the message as a turn (after the
   * running and queued ones, or first with `interrupt`), and returns the turn's handle at once; the turn's run starts
   * when its turn comes ({@link ConversationTurn.started}). Waits as long as it takes for a worker to take the
   * message: sent while no worker runs, it is answered once one starts.
   *
   * @throws RunRequestRejectedError with `Conversation.Ended`, `Conversation.QueueFull`,
   *   `Conversation.MessageTooLarge`, `Conversation.NotAuthorized` or `Input.Malformed` (docs/errors.md).
   */
  async send(content: ConversationMessage['content'], options: SendOptions = {}): Promise<ConversationTurn> {
    const userId = options.userId ?? this.options.userId;
    const message: ConversationMessage = {
      content,
      ...(options.interrupt ? { interrupt: true } : {}),
      ...(userId !== undefined ? { userId } : {}),
      ...(options.identity !== undefined ? { identity: options.identity } : {}),
      ...(options.watched ? { watched: true } : {}),
    };
    const { workflow, agent, taskQueue, ...rest } = this.options;
    const input: ConversationInput = {
      conversationId: this.id,
      agentName: agent,
      ...rest,
      ...(taskQueue !== undefined ? { taskQueue } : {}),
    };
    const start = new WithStartWorkflowOperation(CONVERSATION_WORKFLOW, {
      ...workflow,
      memo: { agent, conversationId: this.id, ...workflow?.memo },
      workflowId: this.id,
      taskQueue: taskQueue ?? this.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      // An ended conversation stays ended: its id is not reused while Temporal keeps its history.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    let sent: ConversationSendResult;
    try {
      sent = await this.client.workflow.executeUpdateWithStart(conversationSendUpdate, {
        args: [message],
        startWorkflowOperation: start,
        // Temporal answers a second update of the same id with the first one's result: one turn per message.
        ...(options.messageId !== undefined ? { updateId: `message:${options.messageId}` } : {}),
      });
    } catch (err) {
      throw this.refusal(err) ?? err;
    }
    return this.turn(sent.turn, sent.position);
  }

  /** The handle of turn `turn` (numbered from 1), whether it ran, runs or waits. */
  turn(turn: number, position?: number): ConversationTurn {
    const workflowId = turnWorkflowId(this.id, turn);
    return new ConversationTurn(this, turn, this.client.workflow.getHandle(workflowId), this.runOptions, position);
  }

  /**
   * How the conversation is doing: running turn, queue, transcript size, summary, compactions. A worker answers it
   * (see `requestTimeoutMs`).
   */
  async state(): Promise<ConversationState> {
    const handle = this.handle();
    return await throughWorker(handle, () => handle.query(conversationStateQuery), {
      request: 'the conversation state query',
      timeoutMs: this.requestTimeoutMs,
    });
  }

  /** Cancels the running turn, if any (its tools and model call see the cancellation); the conversation stays. */
  async stop(): Promise<number | undefined> {
    const handle = this.handle();
    return await throughWorker(handle, () => handle.executeUpdate(conversationStopUpdate), {
      request: 'the stop',
      timeoutMs: this.requestTimeoutMs,
      pending: true,
    });
  }

  /** Ends the conversation: new messages are refused (`Conversation.Ended`); queued turns still run, then it completes. */
  async end(): Promise<void> {
    const handle = this.handle();
    try {
      await throughWorker(handle, () => handle.executeUpdate(conversationEndUpdate), {
        request: 'the end',
        timeoutMs: this.requestTimeoutMs,
        pending: true,
      });
    } catch (err) {
      // Ending an ended conversation is done already.
      if (err instanceof WorkflowNotFoundError) return;
      throw err;
    }
  }

  /** Waits until the conversation's workflow has completed (after `end()` and its last turn). */
  async ended(): Promise<void> {
    await this.handle().result();
  }

  /**
   * The conversation's messages, oldest first, a page at a time: every turn that ended (completed, cancelled,
   * failed), its user message and what the agent added, each with its turn number. Read from the conversation's
   * history (every execution since continue-as-new), with this client's data converter: no worker is needed, running
   * or ended. A turn shows up once it has ended. Pass `nextCursor` to read on.
   */
  async history(options: { cursor?: string; limit?: number } = {}): Promise<ConversationHistoryPage> {
    const limit = Math.max(1, Math.min(options.limit ?? 100, 1_000));
    const cursor = parseCursor(options.cursor);
    let described;
    try {
      described = await this.handle().describe();
    } catch (err) {
      // No message was ever sent: the conversation does not exist yet.
      if (err instanceof WorkflowNotFoundError) return { messages: [] };
      throw err;
    }
    const firstRunId = described.raw.workflowExecutionInfo?.firstRunId || described.runId;
    const runIds = await this.chain(firstRunId, described.runId);
    let index = cursor ? runIds.indexOf(cursor.runId) : 0;
    if (index < 0) throw new Error(`The cursor '${options.cursor}' names no execution of conversation '${this.id}'.`);
    let skip = cursor?.offset ?? 0;
    const messages: ConversationHistoryPage['messages'] = [];
    for (; index < runIds.length; index++) {
      const runId = runIds[index]!;
      const all = (await this.turnRecords(runId)).flatMap((record) =>
        record.messages.map((message) => ({ ...message, turn: record.turn })),
      );
      const page = all.slice(skip, skip + (limit - messages.length));
      messages.push(...page);
      if (messages.length >= limit) {
        const offset = skip + page.length;
        if (offset < all.length) return { messages, nextCursor: `${runId}:${offset}` };
        // The page ends with this execution: the next one starts the next page (if there is one).
        const nextRun = runIds[index + 1];
        return nextRun !== undefined ? { messages, nextCursor: `${nextRun}:0` } : { messages };
      }
      skip = 0;
    }
    return { messages };
  }

  /**
   * The conversation's executions from its first to `latestRunId`. Only closed executions are asked what they
   * continued into (asking a running one waits for it to close).
   */
  private async chain(firstRunId: string, latestRunId: string): Promise<string[]> {
    const runIds = [firstRunId];
    for (let runId = firstRunId; runId !== latestRunId && runIds.length < MAX_EXECUTIONS; ) {
      const next = await nextRunId(this.client.workflow, this.id, runId);
      if (next === undefined) break;
      runIds.push((runId = next));
    }
    return runIds;
  }

  /** The turns one execution recorded, in order: the results of its `conversationTurnMessages` activities. */
  private async turnRecords(runId: string): Promise<ConversationTurnRecord[]> {
    const events: HistoryEvent[] = (await this.client.workflow.getHandle(this.id, runId).fetchHistory()).events ?? [];
    const context: SerializationContext = {
      type: 'workflow',
      namespace: this.client.options.namespace,
      workflowId: this.id,
    };
    const decode = (payloads: Payload[] | null | undefined) =>
      decodeFromPayloadsAtIndex(this.client.options.loadedDataConverter, 0, payloads, context);
    const turns = new Set<string>();
    const records: ConversationTurnRecord[] = [];
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === 'conversationTurnMessages') turns.add(String(event.eventId));
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed && turns.has(String(completed.scheduledEventId))) {
        records.push((await decode(completed.result?.payloads)) as ConversationTurnRecord);
      }
    }
    return records;
  }

  private handle(): WorkflowHandle {
    return this.client.workflow.getHandle(this.id);
  }

  /** The send's failure as a RunRequestRejectedError with a code, or undefined when it is not a refusal. */
  private refusal(err: unknown): RunRequestRejectedError | undefined {
    if (
      err instanceof WorkflowExecutionAlreadyStartedError ||
      (err as Error)?.name === 'WorkflowExecutionAlreadyStartedError'
    ) {
      return ended(this.id, err);
    }
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof Error) {
      const cause = err.cause;
      const code =
        cause instanceof ApplicationFailure && cause.type && REFUSAL_CODES.has(cause.type)
          ? (cause.type as RefusalCode)
          : RefusalCode.RunRefused;
      return new RunRequestRejectedError(cause.message, { code, cause: err });
    }
    if (err instanceof WorkflowNotFoundError && /already completed|already finished|closed/i.test(err.message)) {
      return ended(this.id, err);
    }
    return undefined;
  }

  /** Whether the conversation's workflow still runs (used by turns waiting to start). */
  async running(): Promise<boolean> {
    try {
      return (await this.handle().describe()).status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }
}

function ended(id: string, cause: unknown): RunRequestRejectedError {
  return new RunRequestRejectedError(
    `Conversation '${id}' has ended (or its workflow id is taken by a closed execution): it takes no new message. ` +
      'Start a conversation with another id.',
    { code: RefusalCode.ConversationEnded, cause },
  );
}

function parseCursor(cursor: string | undefined): { runId: string; offset: number } | undefined {
  if (cursor === undefined) return undefined;
  const at = cursor.lastIndexOf(':');
  const offset = Number(cursor.slice(at + 1));
  if (at <= 0 || !Number.isSafeInteger(offset) || offset < 0) {
    throw new Error(`'${cursor}' is not a cursor of conversation.history(): pass the nextCursor a page returned.`);
  }
  return { runId: cursor.slice(0, at), offset };
}

/**
 * One turn of a conversation: an {@link AgentRun} (its stream, result, approvals and answers work as any run's),
 * with its turn number. A queued turn's run starts when its turn comes: every method waits for that first.
 */
export class ConversationTurn extends AgentRun {
  constructor(
    readonly conversation: Conversation,
    readonly turn: number,
    handle: WorkflowHandle,
    options: AgentRunOptions,
    /** Turns ahead of this one when it was sent (0: it started, or starts now). */
    readonly position?: number,
  ) {
    super(handle, options);
  }

  private startedOnce: Promise<void> | undefined;

  /**
   * Resolves once the turn's run has started (at once for a started or ended one). Rejects when the conversation has
   * closed without starting it, or when `signal` aborts.
   */
  async started(options: { signal?: AbortSignal } = {}): Promise<void> {
    this.startedOnce ??= this.waitStarted(options.signal);
    await this.startedOnce;
  }

  private async waitStarted(signal: AbortSignal | undefined): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.handle.describe();
        return;
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
      if (attempt % 20 === 19 && !(await this.conversation.running())) {
        throw new Error(
          `Turn ${this.turn} of conversation '${this.conversation.id}' never started: the conversation has closed.`,
        );
      }
      signal?.throwIfAborted();
      // Quick while the turn ahead is likely to end soon; then every 5 s (it may wait hours for a person), so an
      // open page behind it costs Temporal one describe call per 5 s.
      const wait = attempt < 40 ? Math.min(50 * 2 ** attempt, 500) : 5_000;
      await delay(wait, undefined, signal ? { signal } : {});
    }
  }

  override async result(): Promise<AgentRunResult> {
    await this.started();
    return await super.result();
  }

  /** The turn's answer text, once it has ended (shorthand for `(await turn.result()).text`). */
  async text(): Promise<string> {
    return (await this.result()).text;
  }

  override async messages(): Promise<TranscriptMessage[]> {
    await this.started();
    return await super.messages();
  }

  override async state(): Promise<RunState> {
    await this.started();
    return await super.state();
  }

  override async *events(
    options: { after?: number; pollIntervalMs?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<RunEvent> {
    await this.started(options.signal ? { signal: options.signal } : {});
    yield* super.events(options);
  }

  override async *stream(options: RunStreamOptions = {}): AsyncGenerator<RunStreamPart> {
    await this.started(options.signal ? { signal: options.signal } : {});
    yield* super.stream(options);
  }

  override async approve(toolCallId: string, options: DecisionOptions = {}): Promise<ApprovalRecord | undefined> {
    await this.started();
    return await super.approve(toolCallId, options);
  }

  override async deny(toolCallId: string, options: DecisionOptions = {}): Promise<ApprovalRecord | undefined> {
    await this.started();
    return await super.deny(toolCallId, options);
  }

  override async submitToolResult(
    toolCallId: string,
    output: JsonValue,
    options: { isError?: boolean } = {},
  ): Promise<void> {
    await this.started();
    await super.submitToolResult(toolCallId, output, options);
  }

  override async respondToElicitation(
    id: string,
    answer: { action: 'accept' | 'decline' | 'cancel'; content?: ElicitationContent },
    options: { responder?: string; signal?: boolean; token?: string } = {},
  ): Promise<ElicitationRecord | undefined> {
    await this.started();
    return await super.respondToElicitation(id, answer, options);
  }

  /** Cancels this turn's run (as `conversation.stop()` does for the running turn); the conversation stays. */
  override async cancel(): Promise<void> {
    await this.started();
    await super.cancel();
  }
}
