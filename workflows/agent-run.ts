import {
  ActivityCancellationType,
  ApplicationFailure,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  log,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  DEFAULT_HISTORY_EVENT_BUDGET,
  FailureType,
  ZERO_USAGE,
  addUsage,
  assistantText,
  defaultModelOutput,
  initialMessages,
  previewOutput,
  previewText,
  type AgentDescription,
  type AgentRunInput,
  type AgentRunOutput,
  type CheckedToolCall,
  type ExecuteToolResult,
  type JsonValue,
  type ToolResultOutput,
  type PendingToolResult,
  type RunContextData,
  type RunContinuation,
  type RunState,
  type RunStatus,
  type RunningTool,
  type StepSummary,
  type StopReason,
  type ToolCallOutcome,
  type ToolDeniedData,
  type ToolDescriptor,
  type ToolResultSubmission,
  type TranscriptDelta,
  type TranscriptMark,
  type TranscriptMessage,
} from '../src/protocol/index.js';
import { ApprovalBook } from './approvals.js';
import { EventLog } from './event-log.js';
import {
  approvalSignal,
  approvalUpdate,
  eventsQuery,
  stateQuery,
  toolProgressSignal,
  toolResultSignal,
  toolResultUpdate,
  transcriptQuery,
} from './messages.js';

type Activities = ReturnType<typeof createActivities>;

// A local activity: it runs inside the run's first workflow task (no extra task round trip before the first
// model call) and its result is recorded in history like any activity's.
const { describeAgent } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
});

/** Events carried into the next execution on continue-as-new (older ones stay readable on the previous run). */
const CARRIED_EVENTS = 1_000;

/** A transcript query answers at most about this many bytes of messages (at least one message). */
const TRANSCRIPT_PAGE_BYTES = 1_000_000;

/** Continue-as-new only while the carried state is well under Temporal's 2 MB payload limit. */
const MAX_CONTINUATION_BYTES = 1_500_000;

/** One tool-result part of the tool message that follows a step. */
type ToolResultPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolResultOutput };

/**
 * The agent loop. Deterministic: every model call and tool execution is an activity, every wait for a person is a
 * `condition`, and all the workflow keeps is plain data. Activity inputs carry a run reference, a message count and
 * the previous step's tool message with executed outputs as references; the worker keeps the transcript and asks the
 * transcript query for whatever it lacks. So each message is recorded in history once, in the activity result (or
 * the run input) that produced it.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentRunOutput> {
  const carried = input.continuation;
  const run: RunContextData = {
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
    ...(input.conversationId !== undefined ? { conversationId: input.conversationId } : {}),
    context: input.context ?? {},
  };
  const events = new EventLog(carried?.events);
  const approvals = new ApprovalBook(carried ? [...carried.approvals] : [], carried?.earlyApprovals ?? []);
  const messages: TranscriptMessage[] = carried ? [...carried.messages] : [];
  const steps: StepSummary[] = carried ? [...carried.steps] : [];
  const pendingToolResults = new Map<string, PendingToolResult>();
  const submittedToolResults = new Map<string, ToolResultSubmission>(
    (carried?.earlyToolResults ?? []).map((r) => [r.toolCallId, r]),
  );
  const runningTools = new Map<string, RunningTool>();
  let usage = carried?.usage ?? ZERO_USAGE;
  let status: RunStatus = 'running';

  // Handlers are registered before the first await so that early signals and queries are never lost.
  // Signals have no validator: malformed ones are ignored here (a throw would fail every workflow task).
  setHandler(approvalSignal, (decision) => {
    if (approvals.malformed(decision)) log.warn('Ignored a malformed approval signal', { decision });
    else approvals.receive(decision);
  });
  setHandler(
    approvalUpdate,
    async (decision) => {
      approvals.receive(decision);
      await condition(() => approvals.recordFor(decision.toolCallId) !== undefined);
      return approvals.recordFor(decision.toolCallId)!;
    },
    {
      validator: (decision) => {
        const why = approvals.malformed(decision) ?? approvals.rejection(decision);
        if (why) throw new Error(why);
      },
    },
  );
  const acceptToolResult = (submission: ToolResultSubmission): void => {
    if (!submittedToolResults.has(submission.toolCallId)) submittedToolResults.set(submission.toolCallId, submission);
  };
  setHandler(toolResultSignal, (submission) => {
    if (typeof submission?.toolCallId !== 'string') log.warn('Ignored a malformed tool-result signal');
    else acceptToolResult(submission);
  });
  setHandler(toolResultUpdate, acceptToolResult, {
    validator: (submission) => {
      if (typeof submission?.toolCallId !== 'string') throw new Error('toolCallId must be a string.');
      if (!pendingToolResults.has(submission.toolCallId)) {
        const waiting = [...pendingToolResults.keys()];
        throw new Error(
          `No client-side tool call '${submission.toolCallId}' is waiting for a result.` +
            (waiting.length ? ` Waiting: ${waiting.join(', ')}.` : ''),
        );
      }
      if (submittedToolResults.has(submission.toolCallId)) {
        throw new Error(`A result for tool call '${submission.toolCallId}' was already submitted.`);
      }
    },
  });
  setHandler(toolProgressSignal, (progress) => {
    if (typeof progress?.toolCallId !== 'string' || typeof progress.seq !== 'number') return;
    const running = runningTools.get(progress.toolCallId);
    if (!running || (running.progress && running.progress.seq >= progress.seq)) return;
    running.progress = { ...progress, value: previewOutput(progress.value) };
    events.emit({
      type: 'tool-progress',
      toolCallId: progress.toolCallId,
      progressSeq: progress.seq,
      value: previewOutput(progress.value),
    });
  });
  setHandler(
    stateQuery,
    (): RunState => ({
      status: status === 'running' && (approvals.list().length > 0 || pendingToolResults.size > 0) ? 'waiting' : status,
      step: steps.length,
      usage,
      pendingApprovals: approvals.list(),
      pendingToolResults: [...pendingToolResults.values()],
      pendingElicitations: [],
      runningTools: [...runningTools.values()],
      messageCount: messages.length,
      lastEventSeq: events.lastSeq,
    }),
  );
  setHandler(eventsQuery, (after, limit) => events.after(after, limit));
  setHandler(transcriptQuery, (from, to, fromPart = 0) => {
    // Answers are bounded (a query result is one payload under Temporal's limit); callers page with `from`.
    const end = Math.min(to ?? messages.length, messages.length);
    const answer = { runId: workflowInfo().runId, from, total: messages.length, run };
    const first = messages[from];
    if (first && Array.isArray(first.content) && (fromPart > 0 || approximateBytes(first) > TRANSCRIPT_PAGE_BYTES)) {
      // One message larger than a page (say, a step with several big tool outputs) comes in pieces of its parts.
      const parts: unknown[] = [];
      let bytes = 0;
      for (let i = fromPart; i < first.content.length; i++) {
        bytes += approximateBytes(first.content[i]);
        if (parts.length > 0 && bytes > TRANSCRIPT_PAGE_BYTES) break;
        parts.push(first.content[i]);
      }
      return {
        ...answer,
        messages: [],
        piece: { role: first.role, fromPart, parts, totalParts: first.content.length },
      };
    }
    const slice: TranscriptMessage[] = [];
    let bytes = 0;
    for (let i = from; i < end; i++) {
      bytes += approximateBytes(messages[i]);
      if (slice.length > 0 && bytes > TRANSCRIPT_PAGE_BYTES) break;
      slice.push(messages[i]!);
    }
    return { ...answer, messages: slice };
  });

  try {
    let description: AgentDescription;
    if (carried) {
      description = carried.description;
    } else {
      events.emit({ type: 'run-started', agentName: input.agentName });
      description = await describeAgent({ agentName: input.agentName, input: input.input, run });
      if (description.retrieverError) events.emit({ type: 'retriever-error', message: description.retrieverError });
      if (description.systemPrompt.trim() !== '') messages.push({ role: 'system', content: description.systemPrompt });
      messages.push(...initialMessages(input.input));
    }

    const toolsByName = new Map(description.tools.map((tool) => [tool.name, tool]));
    const toolNames = description.tools.map((tool) => tool.name);
    const maxSteps = input.maxSteps ?? description.maxSteps;
    const approvalTimeoutMs = input.approvalTimeoutMs ?? description.approval.timeoutMs;
    const { generate } = proxyActivities<Activities>(generateActivityOptions(description));
    const info = workflowInfo();
    const runRef = { workflowId: info.workflowId, runId: info.runId };

    /** Runs, waits for, or answers one tool call; returns the part the model sees and how it ended. */
    const settleToolCall = async (
      step: number,
      call: CheckedToolCall,
      args: JsonValue,
      messageCount: number,
    ): Promise<{ part: ToolResultPart; outcome: ToolCallOutcome; denied?: ToolDeniedData; outputId?: string }> => {
      const { toolCallId, toolName } = call;
      const answer = (output: ToolResultOutput, outcome: ToolCallOutcome, eventOutput: JsonValue) => {
        events.emit({ type: 'tool-result', step, toolCallId, toolName, outcome, output: previewOutput(eventOutput) });
        return { part: { type: 'tool-result' as const, toolCallId, toolName, output }, outcome };
      };
      if (call.status === 'invalid') return answer({ type: 'error-text', value: call.error }, 'invalid', call.error);

      if (call.needsApproval) {
        const decision = await approvals.await({ toolCallId, toolName, args, step }, approvalTimeoutMs, () =>
          events.emit({ type: 'approval-requested', step, toolCallId, toolName, args: previewOutput(args) }),
        );
        events.emit({
          type: 'approval-decided',
          toolCallId,
          toolName,
          approved: decision.approved,
          ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
          ...(decision.approver !== undefined ? { approver: decision.approver } : {}),
          ...(decision.timedOut ? { timedOut: true } : {}),
        });
        if (!decision.approved) {
          const reason = decision.reason ?? 'The user denied this tool call.';
          return answer({ type: 'execution-denied', reason }, 'denied', reason);
        }
      }

      if (call.clientSide) {
        pendingToolResults.set(toolCallId, { toolCallId, toolName, args, step });
        events.emit({ type: 'tool-result-requested', step, toolCallId, toolName, args: previewOutput(args) });
        await condition(() => submittedToolResults.has(toolCallId));
        pendingToolResults.delete(toolCallId);
        const submission = submittedToolResults.get(toolCallId)!;
        // Consumed: a later call that reuses this id (some providers number ids per step) waits for its own.
        submittedToolResults.delete(toolCallId);
        const output: ToolResultOutput = submission.isError
          ? { type: 'error-json', value: submission.output }
          : defaultModelOutput(submission.output);
        return answer(output, 'client-result', submission.output);
      }

      const descriptor = toolsByName.get(toolName);
      const { executeTool } = proxyActivities<Activities>(toolActivityOptions(description, descriptor));
      runningTools.set(toolCallId, { toolCallId, toolName, step, startedAt: new Date().toISOString() });
      events.emit({ type: 'tool-started', step, toolCallId, toolName });
      let result: ExecuteToolResult;
      try {
        result = await executeTool({
          agentName: description.agentName,
          run: runRef,
          step,
          messageCount,
          toolCallId,
          toolName,
          args,
          // Stable across activity retries and replays; unique per tool call of this workflow.
          idempotencyKey: `${info.workflowId}:${step}:${toolCallId}`,
          ...(mark ? { mark } : {}),
        });
      } finally {
        runningTools.delete(toolCallId);
      }
      if (result.kind === 'denied') {
        const output: ToolResultOutput = { type: 'error-text', value: result.error.message };
        return { ...answer(output, 'denied', result.error.message), denied: result.error };
      }
      return {
        ...answer(result.modelOutput ?? defaultModelOutput(result.output), result.kind, result.output),
        outputId: result.outputId,
      };
    };

    let stopReason: StopReason = 'max-steps';
    let finishReason = 'unknown';
    let delta: TranscriptDelta | undefined;
    let mark: TranscriptMark | undefined;
    let continuationTooLarge = false;
    while (steps.length < maxSteps) {
      const step = steps.length + 1;
      events.emit({ type: 'step-started', step });
      const generated = await generate({
        agentName: description.agentName,
        run: runRef,
        step,
        messageCount: messages.length,
        toolNames,
        ...(delta ? { delta } : {}),
        ...(mark ? { mark } : {}),
      });
      mark = { at: messages.length, responseId: generated.responseId };
      messages.push(...generated.messages);
      usage = addUsage(usage, generated.usage);
      finishReason = generated.finishReason;
      const text = assistantText(generated.messages[generated.messages.length - 1]);
      if (text !== '') events.emit({ type: 'text', step, text: previewText(text) });

      const argsById = toolCallArgs(generated.messages);
      for (const call of generated.toolCalls) {
        events.emit({
          type: 'tool-call',
          step,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          args: previewOutput(argsById.get(call.toolCallId) ?? null),
        });
      }
      const messageCount = messages.length;
      // allSettled, not all: when the run is cancelled (or one call fails), every sibling tool activity finishes
      // its cancellation and cleanup before the run ends.
      const outcomes = await Promise.allSettled(
        generated.toolCalls.map((call) =>
          settleToolCall(step, call, argsById.get(call.toolCallId) ?? null, messageCount),
        ),
      );
      const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (rejected) throw rejected.reason;
      const settled = outcomes.map(
        (o) => (o as PromiseFulfilledResult<Awaited<ReturnType<typeof settleToolCall>>>).value,
      );
      delta = undefined;
      if (settled.length > 0) {
        delta = {
          at: messages.length,
          content: settled.map(({ part, outputId }) =>
            outputId
              ? { type: 'tool-result-ref', toolCallId: part.toolCallId, toolName: part.toolName, outputId }
              : part,
          ),
        };
        messages.push({ role: 'tool', content: settled.map((s) => s.part) });
      }
      steps.push({
        step,
        finishReason,
        usage: generated.usage,
        toolCalls: generated.toolCalls.map((call, i) => ({
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          outcome: settled[i]!.outcome,
        })),
      });
      events.emit({ type: 'step-finished', step, finishReason, usage: generated.usage });

      const denied = settled.find((s) => s.denied)?.denied;
      if (denied) {
        throw ApplicationFailure.create({
          type: FailureType.ToolDenied,
          message: denied.message,
          nonRetryable: true,
          details: [denied],
        });
      }
      if (generated.toolCalls.length === 0) {
        stopReason = 'completed';
        break;
      }
      if (steps.length < maxSteps && shouldContinueAsNew(input)) {
        await condition(allHandlersFinished);
        const generation = (carried?.generation ?? 0) + 1;
        const continuation: RunContinuation = {
          description,
          messages,
          // A bounded tail: sequence numbers go on from it, so clients that keep up miss nothing.
          events: [...events.tail(CARRIED_EVENTS - 1), events.preview({ type: 'continued-as-new', generation })],
          steps,
          usage,
          approvals: approvals.history(),
          earlyApprovals: approvals.early(),
          earlyToolResults: [...submittedToolResults.values()],
          generation,
        };
        // Input of the next execution is one payload: past Temporal's limit it could never start. Keep going in
        // this execution instead (history grows, but the run is not stuck), and say so once.
        if (approximateBytes(continuation) < MAX_CONTINUATION_BYTES) {
          events.emit({ type: 'continued-as-new', generation });
          return await continueAsNew<typeof agentRun>({ ...input, continuation });
        }
        if (!continuationTooLarge) {
          continuationTooLarge = true;
          log.warn('Run state too large to continue as new; continuing in this execution', { step });
        }
      }
    }

    const text = assistantText(lastAssistant(messages));
    status = 'completed';
    events.emit({ type: 'finished', text, finishReason, stopReason });
    await condition(allHandlersFinished);
    return {
      version: 1,
      text,
      finishReason,
      stopReason,
      steps,
      usage,
      approvals: approvals.history(),
      messageCount: messages.length,
    };
  } catch (err) {
    // Continue-as-new ends this execution by throwing; it is neither a failure nor a cancellation.
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) {
      status = 'cancelled';
      events.emit({ type: 'cancelled' });
    } else {
      status = 'failed';
      const failure = err instanceof ApplicationFailure ? err : undefined;
      events.emit({
        type: 'failed',
        message: rootCauseMessage(err),
        ...(failure?.type ? { errorType: failure.type } : {}),
      });
    }
    throw err;
  }
}

/** Size of a value as JSON, in UTF-16 units: close enough to its payload size for a limit check. */
function approximateBytes(value: unknown): number {
  return JSON.stringify(value).length;
}

/** The innermost cause's message: "Activity task failed" says less than what made the activity fail. */
function rootCauseMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/** The arguments of each tool call in the assistant message(s), by tool-call id. */
function toolCallArgs(messages: TranscriptMessage[]): Map<string, JsonValue> {
  const args = new Map<string, JsonValue>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') args.set(part.toolCallId, (part.input ?? null) as JsonValue);
    }
  }
  return args;
}

function lastAssistant(messages: TranscriptMessage[]): TranscriptMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'assistant') return messages[i];
  return undefined;
}

function shouldContinueAsNew(input: AgentRunInput): boolean {
  const info = workflowInfo();
  return (
    info.continueAsNewSuggested || info.historyLength >= (input.historyEventBudget ?? DEFAULT_HISTORY_EVENT_BUDGET)
  );
}

function generateActivityOptions(description: AgentDescription): ActivityOptions {
  const options = description.generateActivity ?? {};
  return {
    startToCloseTimeout: options.startToCloseTimeout ?? '5 minutes',
    heartbeatTimeout: options.heartbeatTimeout ?? '30 seconds',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: 8,
      ...options.retry,
    },
    // A cancelled run waits for the model call to abort its HTTP request before it ends.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}

function toolActivityOptions(description: AgentDescription, tool: ToolDescriptor | undefined): ActivityOptions {
  const defaults = description.toolActivity ?? {};
  const own = tool?.activity ?? {};
  return {
    startToCloseTimeout: own.startToCloseTimeout ?? defaults.startToCloseTimeout ?? '10 minutes',
    heartbeatTimeout: own.heartbeatTimeout ?? defaults.heartbeatTimeout ?? '30 seconds',
    ...((own.scheduleToCloseTimeout ?? defaults.scheduleToCloseTimeout)
      ? { scheduleToCloseTimeout: own.scheduleToCloseTimeout ?? defaults.scheduleToCloseTimeout }
      : {}),
    ...((own.taskQueue ?? defaults.taskQueue) ? { taskQueue: own.taskQueue ?? defaults.taskQueue } : {}),
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 10,
      ...defaults.retry,
      ...own.retry,
    },
    // The tool sees its abort signal and finishes its cleanup before a cancelled run ends.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}
