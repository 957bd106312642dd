import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TemporalFailure, TerminatedFailure } from '@temporalio/common';
import { ToolDeniedError } from '../tool/errors/tool-denied-error.js';
import { RunFailedError } from './errors/run-failed-error.js';
import { refusalOf, runEnded, type RefusedRequest } from './refusal-of.js';
import { describeExecution, type DescribedExecution } from './history/final-record.js';
import { legacyEventsByQuery } from './legacy/events-by-query.js';
import { protocolHasStream, runProtocolOf } from './run-protocol.js';
import { currentRunId } from './history/run-chain.js';
import { transcriptFromHistory } from '../history/transcript-from-history.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, throughWorker } from './through-worker.js';
import {
  RunWithoutStreamError,
  eventsFromStream,
  hasStream,
  streamRun,
  type RunStreamOptions,
  type RunStreamPart,
} from './run-stream.js';
import { toFullStream, toTextStream, type FullStreamPart } from './full-stream.js';
import {
  FailureType,
  readTranscript,
  type AgentRunOutput,
  type ApprovalDecision,
  type ApprovalRecord,
  type ElicitationContent,
  type ElicitationRecord,
  type ElicitationResponse,
  type FinalRunRecord,
  type JsonValue,
  type RunEvent,
  type RunState,
  type ToolDeniedData,
  type TranscriptMessage,
  RefusalCode,
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
  /**
   * The decider is not the run's user: the run refuses the decision (`Approval.NotAuthorized`) unless the agent's
   * `authorizeDecision` hook checks it. What an inbox sends for a reviewer; updates only (not with `signal`).
   */
  requireAuthorization?: boolean;
}

/** Options of {@link AgentRun.respondToElicitation}. */
export interface ElicitationAnswerOptions {
  /** Who answers, as claimed; the hook may vouch for another name (see `requireAuthorization`). */
  responder?: string;
  /** Send as a fire-and-forget signal instead of an update (no refusal comes back). */
  signal?: boolean;
  /** The question's token, when you have it; otherwise read from `run.state()` just before sending. */
  token?: string;
  /**
   * The responder is not the run's user: the run asks the agent's `authorizeDecision` hook first, and refuses the
   * answer (`Elicitation.NotAuthorized`) when the hook does, when the agent has none, or when the run started before
   * such answers were checked. Updates only (not with `signal`).
   */
  requireAuthorization?: boolean;
  /** Evidence of the responder's identity for the hook. Stored in history: no secrets. */
  identity?: JsonValue;
}

/** Options of an {@link AgentRun}. */
export interface AgentRunOptions {
  /**
   * How long a request that a worker answers (queries: `state`, `events`, `messages` of a running run; updates:
   * `approve`, `deny`, `submitToolResult`) waits before failing with `NoWorkerError` (no worker polls the run's task
   * queue, or Temporal says so itself a second before the deadline) or `WorkerTimeoutError` (workers poll it but none
   * answered). Default 20 s: after a worker crash, a run's first
   * answer can take ~10 s.
   */
  requestTimeoutMs?: number;
}

/**
 * A handle on one durable agent run: a workflow id, following continue-as-new. A run started by
 * `AgentClient.start` (or looked up with its `firstExecutionRunId`) is pinned to its own executions: a later run that
 * reuses the workflow id is another run, which this handle never reads or changes.
 */
export class AgentRun {
  private readonly requestTimeoutMs: number;

  /**
   * `handle`: for a pinned run, a handle made with `getHandle(workflowId, undefined, { firstExecutionRunId })`, so
   * that its result, updates and cancellation stay with the run's chain; queries and signals are sent to the
   * chain's current execution, which this class looks up.
   */
  constructor(
    readonly handle: WorkflowHandle,
    options: AgentRunOptions = {},
    /** The run id of the run's first execution, when known: the run is then pinned to it. */
    readonly firstExecutionRunId?: string,
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** The run's workflow id. */
  get id(): string {
    return this.handle.workflowId;
  }

  /**
   * Waits for the run to end (as long as it takes) and returns its result. A run ended by a `ToolDeniedError`
   * rejects with that error, code and HTTP status kept; any other failed run with a {@link RunFailedError} whose
   * message names the run and the root cause in one line (Temporal's `WorkflowFailedError` is its `cause`). A
   * cancelled or terminated run rejects with Temporal's `WorkflowFailedError`. The result and the transcript are read from the run's
   * history, so no worker needs to be running (see {@link messages}).
   */
  async result(): Promise<AgentRunResult> {
    let output: AgentRunOutput;
    try {
      output = (await this.handle.result()) as AgentRunOutput;
    } catch (err) {
      throw translateRunError(err, this.id);
    }
    const messages = await this.messages();
    return { ...output, messages, ...toolCallsOf(messages) };
  }

  /**
   * The run's transcript (system prompt, input, model responses, tool results). Once the run has ended (completed,
   * failed, cancelled, terminated) it is rebuilt from the run's history with the client's data converter, payload
   * codec included: no worker is needed. While the run is running, a worker answers it (see `requestTimeoutMs`), as
   * it does for the rare finished run whose history this client cannot rebuild (docs/durable-runs.md).
   */
  async messages(): Promise<TranscriptMessage[]> {
    const current = await this.currentExecution();
    if (!current.running) {
      const { messages } = await transcriptFromHistory(this.handle.client, this.id, current.runId);
      if (messages) return messages;
    }
    const execution = this.handle.client.getHandle(this.id, current.runId);
    // The run answers in pages of about 1 MB; a larger message comes in pieces, each page with its own deadline.
    const page = await readTranscript(
      (from, to, fromPart) =>
        this.ask('the transcript query', () => execution.query(transcriptQuery, from, to, fromPart)),
      0,
    );
    return page.messages;
  }

  /**
   * Status, step, pending approvals and client-side tool calls, running tools. While the run runs a worker answers
   * it; once it has completed, failed or been cancelled it is the state the run recorded as it ended (no worker
   * needed; a run that ended on v0.3.0 or earlier, or was terminated, recorded none and is still asked by query).
   */
  async state(): Promise<RunState> {
    const runId = await this.executionRunId();
    const record = await this.recordOf(runId);
    if (record) return record.state;
    const execution = runId === undefined ? this.handle : this.handle.client.getHandle(this.id, runId);
    return await this.ask('the state query', () => execution.query(stateQuery));
  }

  /**
   * What the run recorded as it ended (completed, failed or cancelled): its final events and state, read from
   * Temporal with no worker. `truncated` says how many of the oldest events were left out to keep the record under
   * its byte bound (docs/limits.md). Undefined while the run runs, or for a run that recorded none (ended on v0.3.0
   * code, or terminated by Temporal).
   */
  async finalRecord(): Promise<FinalRunRecord | undefined> {
    return await this.recordOf(await this.executionRunId());
  }

  /** The final record of the execution `runId` (undefined: the latest), if it ended with one. */
  private async recordOf(runId: string | undefined): Promise<FinalRunRecord | undefined> {
    const described = await this.describe(runId);
    return described.running ? undefined : await described.finalRecord();
  }

  /** Describes the execution `runId` (undefined: the workflow id's latest). */
  private async describe(runId: string | undefined): Promise<DescribedExecution> {
    return await describeExecution(this.handle.client, this.id, runId);
  }

  /**
   * The execution requests go to: for a pinned run, the current execution of its chain (a later run reusing the
   * workflow id is not it); otherwise the workflow id's latest execution.
   */
  private async execution(): Promise<WorkflowHandle> {
    const runId = await this.executionRunId();
    return runId === undefined ? this.handle : this.handle.client.getHandle(this.id, runId);
  }

  /** The run id of {@link execution}: undefined for an unpinned run (the workflow id's latest execution). */
  private async executionRunId(): Promise<string | undefined> {
    if (this.firstExecutionRunId === undefined) return undefined;
    return await currentRunId(this.handle.client, this.id, this.firstExecutionRunId);
  }

  /** The run id of the execution requests go to, and whether it is still running. */
  private async currentExecution(): Promise<{ runId: string; running: boolean }> {
    const { runId, running } = await this.describe(await this.executionRunId());
    return { runId, running };
  }

  /**
   * The run's events with `seq > after`, in order, as they happen; ends after the terminal event, or quietly
   * when `signal` aborts. Reconnecting with the last seen `seq` misses nothing and repeats nothing. Once the run has
   * completed, failed or been cancelled, the events are the ones it recorded as it ended ({@link finalRecord}): no
   * worker needed. While it runs, a run on protocol 4 (since 0.4.0) is read from its stream (see {@link stream};
   * `pollIntervalMs` does not apply): its memo says it has one, then long polls on the server.
   * An earlier run is read by polling the events query, which a worker answers: with none, this throws
   * `NoWorkerError` after `requestTimeoutMs` (catch it and call again with the last `seq` to keep waiting).
   */
  async *events(
    options: { after?: number; pollIntervalMs?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<RunEvent> {
    const after = options.after ?? 0;
    const interval = options.pollIntervalMs ?? 200;
    const { signal } = options;
    // An ended run recorded its events as it ended: read from history, with no worker.
    const first = await this.executionRunId();
    const recorded = await this.recordOf(first);
    if (recorded) {
      for (const event of recorded.events) if (event.seq > after) yield event;
      return;
    }
    // Runs started since 0.4.0 have a stream: watchers long-poll the server, and share one subscription per process.
    if (await this.hasStream(signal)) {
      const readEvents = (from: number) =>
        this.ask('the events query', () => this.handle.query(eventsQuery, from, 500));
      yield* eventsFromStream(this.handle, readEvents, options);
      return;
    }
    // A run of v0.1.0–v0.3.0: its events query, polled.
    yield* legacyEventsByQuery(
      {
        first: first === undefined ? this.handle : this.handle.client.getHandle(this.id, first),
        query: (execution, from, querySignal) =>
          this.ask('the events query', () => execution.query(eventsQuery, from, 500), { signal: querySignal }),
        current: () => this.execution(),
        recorded: async () => (await this.recordOf(await this.executionRunId()))?.events,
      },
      { after, intervalMs: interval, signal },
    );
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
   * Like {@link stream}, and for a run started before 0.4.0 (no stream) its events as `event` parts whose offset is
   * the event's `seq` (read by {@link events}, which a worker answers while the run runs).
   */
  async *parts(options: RunStreamOptions = {}): AsyncGenerator<RunStreamPart> {
    const { signal } = options;
    if (await this.hasStream(signal)) {
      yield* streamRun(this.handle, options);
      return;
    }
    const after = Math.max(0, Math.trunc(options.from ?? 0) - 1);
    for await (const event of this.events({ after, ...(signal ? { signal } : {}) })) {
      yield { type: 'event', offset: event.seq, event };
    }
  }

  /**
   * The run's stream as typed parts in the AI SDK's idiom (`start-step`, `text-start` / `text-delta` / `text-end`,
   * `reasoning-*`, `tool-input-*`, `tool-call`, `tool-result`, `tool-approval-request`, `reset-step`, `finish-step`,
   * `finish` / `error` / `abort`, ...), each with its stream offset, from the start of the run. The model's text
   * comes as it is written when the run streams model deltas, else whole from each step's `text` event. Ends after
   * the run's terminal part. See {@link fullStreamFrom} to resume, `FullStreamPart` for each part.
   */
  get fullStream(): AsyncIterable<FullStreamPart> {
    return { [Symbol.asyncIterator]: () => this.fullStreamFrom() };
  }

  /**
   * The text the model writes, as it writes it, across the run's steps: the concatenation of everything yielded is
   * the text of the run's steps. Retry-safe as far as a string allows: after a retried model call starts over, its
   * text is yielded only beyond what was already yielded for that step (see `TextStreamAssembler`). Ends after the
   * run's terminal event (a failed or cancelled run ends it quietly: `run.result()` says why).
   */
  get textStream(): AsyncIterable<string> {
    return { [Symbol.asyncIterator]: () => toTextStream(this.fullStreamFrom()) };
  }

  /**
   * The {@link fullStream} from offset `from`: exactly the parts at or after it, so a watcher that reconnects with
   * `from: lastPart.offset + 1` misses and repeats nothing (the run's stream is read from its start underneath, to
   * know each step's text so far). A watcher that fell behind the run's bounded log gets a `truncated` part.
   */
  fullStreamFrom(options: RunStreamOptions = {}): AsyncGenerator<FullStreamPart> {
    const { signal } = options;
    return toFullStream(this.parts(signal ? { signal } : {}), options.from !== undefined ? { from: options.from } : {});
  }

  /**
   * Whether the run has a stream: its protocol (4 on), which its memo says (a describe; no worker needed, so a
   * finished run is read with none). A yes is kept (a run keeps its stream across continue-as-new); a no is asked
   * again, since a later run may reuse the workflow id. When the first task of a new run does not complete in time
   * to tell, the run is asked.
   */
  private async hasStream(signal: AbortSignal | undefined): Promise<boolean> {
    if (this.streamed) return true;
    const protocol = await runProtocolOf(
      this.handle.client,
      this.id,
      await this.executionRunId(),
      this.requestTimeoutMs,
    );
    this.streamed =
      protocolHasStream(protocol) ??
      (await hasStream((call) => this.ask('the stream offset query', call, { signal }), this.handle));
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
        this.rejectionsExplained('tool-result', toolCallId, () =>
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
   * continues with it, or is run again and answered from the record if its worker stopped waiting. The answer echoes
   * the question's token (`options.token`, else read from `run.state()` just before sending).
   */
  async respondToElicitation(
    id: string,
    answer: { action: 'accept' | 'decline' | 'cancel'; content?: ElicitationContent },
    options: ElicitationAnswerOptions = {},
  ): Promise<ElicitationRecord | undefined> {
    if (options.signal && options.requireAuthorization) throw checkedBySignalError();
    // The answer echoes the token only the recorded question shows (read from the run's state unless given).
    const token =
      options.token ??
      (await this.ask('the elicitation answer', () => this.handle.query(stateQuery))).pendingElicitations.find(
        (p) => p.id === id,
      )?.token;
    const response: ElicitationResponse = {
      id,
      action: answer.action,
      ...(answer.content !== undefined ? { content: answer.content } : {}),
      ...(options.responder !== undefined ? { responder: options.responder } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(options.requireAuthorization ? { requireAuthorization: true } : {}),
      ...(options.identity !== undefined ? { identity: options.identity } : {}),
    };
    if (options.signal) {
      await (await this.execution()).signal(elicitationResponseSignal, response);
      return undefined;
    }
    return await this.ask(
      'the elicitation answer',
      () =>
        this.rejectionsExplained('elicitation', id, () =>
          this.handle.executeUpdate(elicitationResponseUpdate, { args: [response] }),
        ),
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
    if (options.signal && options.requireAuthorization) throw checkedBySignalError();
    const what = approved ? 'the approval' : 'the denial';
    const token = options.token ?? (await this.requestToken(what, toolCallId, options.signal === true));
    const decision: ApprovalDecision = {
      toolCallId,
      approved,
      ...(token !== undefined ? { token } : {}),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
      ...(options.approver !== undefined ? { approver: options.approver } : {}),
      ...(options.identity !== undefined ? { identity: options.identity } : {}),
      ...(options.requireAuthorization ? { requireAuthorization: true } : {}),
    };
    if (options.signal) {
      await (await this.execution()).signal(approvalSignal, decision);
      return undefined;
    }
    return await this.ask(
      what,
      () =>
        this.rejectionsExplained('approval', toolCallId, () =>
          this.handle.executeUpdate(approvalUpdate, { args: [decision] }),
        ),
      { pending: true },
    );
  }

  /**
   * The pending request's token, read from the run. A run that has ended waits for nothing: said at once. A call not
   * pending (yet) has no token: a signal goes without one (kept only if the agent allows early decisions), an update
   * is refused by the run with the reason.
   */
  private async requestToken(what: string, toolCallId: string, signal: boolean): Promise<string | undefined> {
    const execution = await this.execution();
    const state = await this.ask(what, () => execution.query(stateQuery));
    if (!signal && (state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled')) {
      throw runEnded(this.id, state.status, undefined, 'it waits for no approval');
    }
    return state.pendingApprovals.find((p) => p.toolCallId === toolCallId)?.token;
  }

  /** An update the run refused becomes a RunRequestRejectedError with the refusal's code and message. */
  /**
   * Sends `update`, turning its refusal into a {@link RunRequestRejectedError}. A request for a call or question the
   * run does not know yet is checked once more: Temporal hands an update to the run before the activity result
   * that arrived in the same workflow task (a model call asking for this very approval), so the validator can refuse
   * a request that is pending a moment later. The state query is answered after that task, and a refusal records
   * nothing, so sending again once the state shows it pending is safe.
   */
  private async rejectionsExplained<T>(request: RefusedRequest, id: string, update: () => Promise<T>): Promise<T> {
    try {
      return await update();
    } catch (err) {
      const refusal = refusalOf(err, request, this.id);
      if (!refusal || !UNKNOWN_ID_CODES.has(refusal.code) || !(await this.pendingNow(request, id))) {
        throw refusal ?? err;
      }
    }
    try {
      return await update();
    } catch (err) {
      throw refusalOf(err, request, this.id) ?? err;
    }
  }

  /** Whether the run's state shows the call or question `id` waiting for `request` now. */
  private async pendingNow(request: RefusedRequest, id: string): Promise<boolean> {
    const state = await this.state().catch(() => undefined);
    if (!state) return false;
    if (request === 'approval') return state.pendingApprovals.some((p) => p.toolCallId === id);
    if (request === 'tool-result') return state.pendingToolResults.some((p) => p.toolCallId === id);
    return state.pendingElicitations.some((p) => p.id === id);
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

/** Refusals of a request whose call or question the run did not know when its validator ran. */
const UNKNOWN_ID_CODES: ReadonlySet<string> = new Set([
  RefusalCode.ApprovalUnknownCall,
  RefusalCode.ToolResultUnknownCall,
  RefusalCode.ElicitationUnknownQuestion,
]);

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

/**
 * A run ended by a ToolDeniedError rejects with that error; any other failed run with a RunFailedError that says the
 * root cause in one line. Cancelled and terminated runs keep Temporal's WorkflowFailedError (its cause says which).
 */
function translateRunError(err: unknown, runId: string): unknown {
  if (!(err instanceof WorkflowFailedError)) return err;
  if (err.cause instanceof ApplicationFailure && err.cause.type === FailureType.ToolDenied) {
    const data = err.cause.details?.[0] as ToolDeniedData | undefined;
    if (data) {
      return new ToolDeniedError({
        toolName: data.toolName,
        message: data.message,
        code: data.code,
        httpStatus: data.httpStatus,
      });
    }
  }
  if (err.cause instanceof CancelledFailure || err.cause instanceof TerminatedFailure) return err;
  let root: unknown = err.cause ?? err;
  let failureType: string | undefined;
  for (let depth = 0; depth < 32; depth++) {
    if (root instanceof ApplicationFailure && root.type) failureType = root.type;
    if (!(root instanceof TemporalFailure) || !(root.cause instanceof Error)) break;
    root = root.cause;
  }
  const rootMessage = root instanceof Error ? root.message : String(root);
  return new RunFailedError({ runId, rootMessage, failureType }, { cause: err });
}

/** A signal has no validator: nothing could refuse a decision or answer that asks to be checked. */
function checkedBySignalError(): TypeError {
  return new TypeError(
    'requireAuthorization needs an update (the run refuses what it cannot check): leave signal out to send it.',
  );
}
