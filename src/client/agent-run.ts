import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowFailedError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ToolDeniedError } from '../tool/errors/tool-denied-error.js';
import { RunRequestRejectedError } from './errors/run-request-rejected-error.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, throughWorker } from './through-worker.js';
import {
  RunWithoutStreamError,
  eventsFromStream,
  hasStream,
  streamRun,
  type RunStreamOptions,
  type RunStreamPart,
} from './run-stream.js';
import {
  FailureType,
  readTranscript,
  TERMINAL_EVENT_TYPES,
  type AgentRunOutput,
  type ApprovalDecision,
  type ApprovalRecord,
  type ElicitationContent,
  type ElicitationRecord,
  type ElicitationResponse,
  type JsonValue,
  type RunEvent,
  type RunState,
  type ToolDeniedData,
  type TranscriptMessage,
} from '../protocol/index.js';
import {
  approvalSignal,
  approvalUpdate,
  elicitationResponseSignal,
  elicitationResponseUpdate,
  eventsQuery,
  stateQuery,
  toolResultUpdate,
  transcriptQuery,
} from '../protocol/run-messages.js';

/** A tool call as it appears in a run's result. */
export interface RunToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** A tool result as it appears in a run's result (what the model saw). */
export interface RunToolResult {
  toolCallId: string;
  toolName: string;
  output: unknown;
}

/** What `run.result()` returns: the workflow's output plus the transcript and the tool calls in it. */
export interface AgentRunResult extends AgentRunOutput {
  messages: TranscriptMessage[];
  toolCalls: RunToolCall[];
  toolResults: RunToolResult[];
}

/** Options of approve / deny. */
export interface DecisionOptions {
  reason?: string;
  /** Who decides, as claimed; recorded as verified only if the agent's `authorizeDecision` hook vouches for it. */
  approver?: string;
  /** Evidence of the decider's identity for the agent's `authorizeDecision` hook. Stored in history: no secrets. */
  identity?: JsonValue;
  /**
   * The request's token, when you have it (from the `approval-requested` event or `state()`); otherwise it is read
   * from the run just before the decision is sent, which needs a worker to answer.
   */
  token?: string;
  /**
   * Send as a fire-and-forget signal instead of an update. A signal is accepted even before the run asks for the
   * approval, and duplicates are ignored; an update rejects unknown or already-decided ids at once.
   */
  signal?: boolean;
}

/** Options of an {@link AgentRun}. */
export interface AgentRunOptions {
  /**
   * How long a request that a worker answers (queries: `state`, `messages`, `events`; updates: `approve`, `deny`,
   * `submitToolResult`) waits before failing with `NoWorkerError` (no worker polls the run's task queue) or
   * `WorkerTimeoutError` (workers poll it but none answered). Default 20 s: after a worker crash, a run's first
   * answer can take ~10 s.
   */
  requestTimeoutMs?: number;
}

/** A handle on one durable agent run (a workflow id, following continue-as-new). */
export class AgentRun {
  private readonly requestTimeoutMs: number;

  constructor(
    readonly handle: WorkflowHandle,
    options: AgentRunOptions = {},
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** The run's workflow id. */
  get id(): string {
    return this.handle.workflowId;
  }

  /**
   * Waits for the run to end (as long as it takes) and returns its result. A run ended by a `ToolDeniedError`
   * rejects with that error, code and HTTP status kept. The transcript is then read through the run's query, so
   * a worker must be running: without one this rejects with `NoWorkerError` after `requestTimeoutMs`.
   */
  async result(): Promise<AgentRunResult> {
    let output: AgentRunOutput;
    try {
      output = (await this.handle.result()) as AgentRunOutput;
    } catch (err) {
      throw translateRunError(err);
    }
    const messages = await this.messages();
    return { ...output, messages, ...toolCallsOf(messages) };
  }

  /**
   * The run's transcript (system prompt, input, model responses, tool results). Works after the run ended; a
   * worker answers it (see `requestTimeoutMs`).
   */
  async messages(): Promise<TranscriptMessage[]> {
    // The run answers in pages of about 1 MB; a larger message comes in pieces, each page with its own deadline.
    const page = await readTranscript(
      (from, to, fromPart) =>
        this.ask('the transcript query', () => this.handle.query(transcriptQuery, from, to, fromPart)),
      0,
    );
    return page.messages;
  }

  /** Status, step, pending approvals and client-side tool calls, running tools. A worker answers it. */
  async state(): Promise<RunState> {
    return await this.ask('the state query', () => this.handle.query(stateQuery));
  }

  /**
   * The run's events with `seq > after`, in order, as they happen; ends after the terminal event, or quietly
   * when `signal` aborts. Reconnecting with the last seen `seq` misses nothing and repeats nothing. A run started
   * since 0.4.0 is read from its stream (see {@link stream}; `pollIntervalMs` does not apply): one query a worker
   * answers to find the stream, then long polls on the server. An earlier run is read by polling the events query,
   * which a worker answers: with none, this throws `NoWorkerError` after `requestTimeoutMs` (catch it and call
   * again with the last `seq` to keep waiting).
   */
  async *events(
    options: { after?: number; pollIntervalMs?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<RunEvent> {
    // Runs started since 0.4.0 have a stream: watchers long-poll the server, and share one subscription per process.
    if (await this.hasStream(options.signal)) {
      const readEvents = (after: number) =>
        this.ask('the events query', () => this.handle.query(eventsQuery, after, 500));
      yield* eventsFromStream(this.handle, readEvents, options);
      return;
    }
    let after = options.after ?? 0;
    const interval = options.pollIntervalMs ?? 200;
    const { signal } = options;
    for (let idle = 0; ; ) {
      if (signal?.aborted) return;
      let batch: RunEvent[];
      try {
        batch = await this.ask('the events query', () => this.handle.query(eventsQuery, after, 500), { signal });
      } catch (error) {
        if (signal?.aborted) return;
        throw error;
      }
      for (const event of batch) {
        after = event.seq;
        yield event;
        if (TERMINAL_EVENT_TYPES.has(event.type)) return;
      }
      if (batch.length > 0) {
        idle = 0;
        continue;
      }
      // A run terminated or timed out by Temporal records no terminal event: stop once it is closed and drained.
      if (++idle % 10 === 0 && (await this.handle.describe()).status.name !== 'RUNNING') {
        const rest = await this.ask('the events query', () => this.handle.query(eventsQuery, after, 500));
        for (const event of rest) yield event;
        return;
      }
      // The timer removes its abort listener when it fires, so a long watch does not pile listeners up.
      const aborted = await delay(interval, false, signal ? { signal } : {}).catch(() => true);
      if (aborted) return;
    }
  }

  /**
   * The run's stream from offset `from` (default: the oldest item it holds): its events and tool progress as typed
   * parts with offsets, as they are published. Resume with `from: lastPart.offset + 1`: nothing is missed or repeated,
   * across continue-as-new; a watcher that fell behind the run's bounded log gets a `truncated` part. Watching is a
   * long poll on the server (no worker answers it); watchers of one run in this process share one subscription.
   * Ends after the terminal event.
   *
   * @throws RunWithoutStreamError for a run started before 0.4.0 (use {@link events}).
   */
  async *stream(options: RunStreamOptions = {}): AsyncGenerator<RunStreamPart> {
    if (!(await this.hasStream(options.signal))) throw new RunWithoutStreamError(this.handle.workflowId);
    yield* streamRun(this.handle, options);
  }

  /**
   * Whether the run has a stream. A yes is kept (a run keeps its stream across continue-as-new); a no is asked again,
   * since a later run may reuse the workflow id.
   */
  private async hasStream(signal: AbortSignal | undefined): Promise<boolean> {
    if (this.streamed) return true;
    this.streamed = await hasStream((call) => this.ask('the stream offset query', call, { signal }), this.handle);
    return this.streamed;
  }

  private streamed = false;

  /** Approves a pending tool call; resolves with the recorded decision (undefined when sent as a signal). */
  async approve(toolCallId: string, options: DecisionOptions = {}): Promise<ApprovalRecord | undefined> {
    return await this.decide(toolCallId, true, options);
  }

  /** Denies a pending tool call: it does not run, and the model is told it was denied and why. */
  async deny(toolCallId: string, options: DecisionOptions = {}): Promise<ApprovalRecord | undefined> {
    return await this.decide(toolCallId, false, options);
  }

  /** Gives a client-side tool call its result; the run continues with it. Rejects when the call is not pending. */
  async submitToolResult(toolCallId: string, output: JsonValue, options: { isError?: boolean } = {}): Promise<void> {
    await this.ask(
      'the tool result',
      () =>
        rejectionsExplained(
          this.handle.executeUpdate(toolResultUpdate, {
            args: [{ toolCallId, output, ...(options.isError ? { isError: true } : {}) }],
          }),
        ),
      { pending: true },
    );
  }

  /**
   * Answers an MCP elicitation (a question a tool's server asked a person): `accept` with `content` matching the
   * question's schema, `decline`, or `cancel`. As an update (default) the run rejects an unknown id, an answered one,
   * or content that does not fit, before recording anything; resolves with the recorded answer. The tool's call
   * continues with it, or is run again and answered from the record if its worker stopped waiting.
   */
  async respondToElicitation(
    id: string,
    answer: { action: 'accept' | 'decline' | 'cancel'; content?: ElicitationContent },
    options: { responder?: string; signal?: boolean } = {},
  ): Promise<ElicitationRecord | undefined> {
    const response: ElicitationResponse = {
      id,
      action: answer.action,
      ...(answer.content !== undefined ? { content: answer.content } : {}),
      ...(options.responder !== undefined ? { responder: options.responder } : {}),
    };
    if (options.signal) {
      await this.handle.signal(elicitationResponseSignal, response);
      return undefined;
    }
    return await this.ask(
      'the elicitation answer',
      () => rejectionsExplained(this.handle.executeUpdate(elicitationResponseUpdate, { args: [response] })),
      { pending: true },
    );
  }

  /** Cancels the run (Temporal cancellation): running tools see their abort signal, no pending tool runs. */
  async cancel(): Promise<void> {
    await this.handle.cancel();
  }

  /**
   * A decision answers the request the run shows: it echoes the request's token, read from the run's state just
   * before sending. (A signal for a call not pending yet goes without one: the run keeps it only if the agent allows
   * early decisions.)
   */
  private async decide(toolCallId: string, approved: boolean, options: DecisionOptions) {
    const what = approved ? 'the approval' : 'the denial';
    const token = options.token ?? (await this.requestToken(what, toolCallId, options.signal === true));
    const decision: ApprovalDecision = {
      toolCallId,
      approved,
      ...(token !== undefined ? { token } : {}),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
      ...(options.approver !== undefined ? { approver: options.approver } : {}),
      ...(options.identity !== undefined ? { identity: options.identity } : {}),
    };
    if (options.signal) {
      await this.handle.signal(approvalSignal, decision);
      return undefined;
    }
    return await this.ask(
      what,
      () => rejectionsExplained(this.handle.executeUpdate(approvalUpdate, { args: [decision] })),
      { pending: true },
    );
  }

  /**
   * The pending request's token, read from the run. A run that has ended waits for nothing: said at once. A call not
   * pending (yet) has no token: a signal goes without one (kept only if the agent allows early decisions), an update
   * is refused by the run with the reason.
   */
  private async requestToken(what: string, toolCallId: string, signal: boolean): Promise<string | undefined> {
    const state = await this.ask(what, () => this.handle.query(stateQuery));
    if (!signal && (state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled')) {
      throw new RunRequestRejectedError(
        `Run '${this.id}' has ${state.status === 'completed' ? 'completed' : `been ${state.status}`}: it waits for no approval.`,
      );
    }
    return state.pendingApprovals.find((p) => p.toolCallId === toolCallId)?.token;
  }

  /**
   * A request a worker answers, with the run's deadline (see `requestTimeoutMs`). `pending`: an update, which
   * Temporal keeps past the deadline (the error says so).
   */
  private async ask<T>(
    request: string,
    call: () => Promise<T>,
    options: { signal?: AbortSignal | undefined; pending?: boolean } = {},
  ): Promise<T> {
    return await throughWorker(this.handle, call, {
      request,
      timeoutMs: this.requestTimeoutMs,
      pending: options.pending === true,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}

/** The tool calls and results in a transcript, in order. */
function toolCallsOf(messages: TranscriptMessage[]): { toolCalls: RunToolCall[]; toolResults: RunToolResult[] } {
  const toolCalls: RunToolCall[] = [];
  const toolResults: RunToolResult[] = [];
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      } else if (part.type === 'tool-result') {
        toolResults.push({ toolCallId: part.toolCallId, toolName: part.toolName, output: part.output });
      }
    }
  }
  return { toolCalls, toolResults };
}

/** An update the run's validator rejected becomes a RunRequestRejectedError carrying the validator's message. */
async function rejectionsExplained<T>(update: Promise<T>): Promise<T> {
  try {
    return await update;
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof Error) {
      throw new RunRequestRejectedError(err.cause.message, { cause: err });
    }
    throw err;
  }
}

/** A run ended by a ToolDeniedError rejects with that error; anything else is passed through. */
function translateRunError(err: unknown): unknown {
  if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure) {
    const failure = err.cause;
    if (failure.type === FailureType.ToolDenied) {
      const data = failure.details?.[0] as ToolDeniedData | undefined;
      if (data) {
        return new ToolDeniedError({
          toolName: data.toolName,
          message: data.message,
          code: data.code,
          httpStatus: data.httpStatus,
        });
      }
    }
  }
  return err;
}
