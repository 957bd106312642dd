import { condition, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  defaultModelOutput,
  previewOutput,
  type AgentDescription,
  type CheckedToolCall,
  type JsonValue,
  type RunRef,
  type ToolCallOutcome,
  type ToolDeniedData,
  type ToolResultOutput,
  type TranscriptDelta,
  type TranscriptMark,
} from '../src/protocol/index.js';
import { toolActivityOptions } from './activity-options.js';
import type { AgentRunState, StepToolResults } from './run-state.js';

type Activities = ReturnType<typeof createActivities>;
type ValidCall = Extract<CheckedToolCall, { status: 'valid' }>;

/** What settling a step's tool calls needs to know. */
export interface StepContext {
  state: AgentRunState;
  description: AgentDescription;
  run: RunRef;
  step: number;
  /** Transcript length when the step's tools started (tools that read the conversation see this much). */
  messageCount: number;
  /** The latest model response the run recorded (see `TranscriptMark`). */
  mark: TranscriptMark;
  approvalTimeoutMs: number | undefined;
}

/** How one tool call ended: the result part the model sees, the outcome, and what the runtime needs besides. */
interface SettledCall {
  part: { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolResultOutput };
  outcome: ToolCallOutcome;
  /** Set when the tool threw `ToolDeniedError`: the whole run ends with it. */
  denied?: ToolDeniedData;
  /** Set for results of `executeTool`: the next model call references them instead of copying them. */
  outputId?: string;
}

/** What a step's tool calls produced: the tool message, the next step's transcript delta, and a denial if any. */
export interface SettledStep extends StepToolResults {
  delta: TranscriptDelta | undefined;
  denied: ToolDeniedData | undefined;
}

/**
 * Runs, waits for, or answers every tool call of a step, in parallel. Results keep call order. `allSettled`, not
 * `all`: when the run is cancelled (or one call fails), every sibling tool activity finishes its cancellation and
 * cleanup before the step ends; then the first failure is rethrown.
 */
export async function settleToolCalls(
  ctx: StepContext,
  calls: CheckedToolCall[],
  argsById: Map<string, JsonValue>,
): Promise<SettledStep> {
  // Each call reaches its first command (timer or activity) synchronously, in call order: replay depends on it.
  const outcomes = await Promise.allSettled(
    calls.map((call) => settleToolCall(ctx, call, argsById.get(call.toolCallId) ?? null)),
  );
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (rejected) throw rejected.reason;
  const settled = outcomes.map((o) => (o as PromiseFulfilledResult<SettledCall>).value);
  return {
    parts: settled.map((s) => s.part),
    outcomes: settled.map((s) => s.outcome),
    delta:
      settled.length === 0
        ? undefined
        : {
            at: ctx.state.messages.length,
            content: settled.map(({ part, outputId }) =>
              outputId
                ? { type: 'tool-result-ref', toolCallId: part.toolCallId, toolName: part.toolName, outputId }
                : part,
            ),
          },
    denied: settled.find((s) => s.denied)?.denied,
  };
}

/** One call: invalid calls are answered at once; approval comes first; then the client or a tool activity. */
async function settleToolCall(ctx: StepContext, call: CheckedToolCall, args: JsonValue): Promise<SettledCall> {
  if (call.status === 'invalid')
    return answer(ctx, call, { type: 'error-text', value: call.error }, 'invalid', call.error);
  if (call.needsApproval) {
    const denial = await awaitApproval(ctx, call, args);
    if (denial !== undefined) return answer(ctx, call, { type: 'execution-denied', reason: denial }, 'denied', denial);
  }
  if (call.clientSide) return await awaitClientResult(ctx, call, args);
  return await executeCall(ctx, call, args);
}

/** Records the result the model sees for a call and announces it. */
function answer(
  ctx: StepContext,
  call: CheckedToolCall,
  output: ToolResultOutput,
  outcome: ToolCallOutcome,
  eventOutput: JsonValue,
): SettledCall {
  const { toolCallId, toolName } = call;
  ctx.state.events.emit({
    type: 'tool-result',
    step: ctx.step,
    toolCallId,
    toolName,
    outcome,
    output: previewOutput(eventOutput),
  });
  return { part: { type: 'tool-result', toolCallId, toolName, output }, outcome };
}

/** Waits for a person's decision (up to the approval timeout). Returns the denial reason, or undefined if approved. */
async function awaitApproval(ctx: StepContext, call: ValidCall, args: JsonValue): Promise<string | undefined> {
  const { state, step, approvalTimeoutMs: timeoutMs } = ctx;
  const { toolCallId, toolName } = call;
  state.approvals.request({ toolCallId, toolName, args, step }, new Date(), timeoutMs);
  state.events.emit({ type: 'approval-requested', step, toolCallId, toolName, args: previewOutput(args) });
  const arrived = () => state.approvals.hasDecision(toolCallId);
  // Cancelling the run rejects the wait, so no tool runs.
  const decided = timeoutMs === undefined ? (await condition(arrived), true) : await condition(arrived, timeoutMs);
  const record = state.approvals.settle(toolCallId, new Date(), decided, timeoutMs);
  state.events.emit({
    type: 'approval-decided',
    toolCallId,
    toolName,
    approved: record.approved,
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.approver !== undefined ? { approver: record.approver } : {}),
    ...(record.timedOut ? { timedOut: true } : {}),
  });
  return record.approved ? undefined : (record.reason ?? 'The user denied this tool call.');
}

/** Pauses the call until the client submits its result (`run.submitToolResult`). */
async function awaitClientResult(ctx: StepContext, call: ValidCall, args: JsonValue): Promise<SettledCall> {
  const { state, step } = ctx;
  const { toolCallId, toolName } = call;
  state.clientTools.request({ toolCallId, toolName, args, step });
  state.events.emit({ type: 'tool-result-requested', step, toolCallId, toolName, args: previewOutput(args) });
  await condition(() => state.clientTools.hasResult(toolCallId));
  const submission = state.clientTools.take(toolCallId);
  const output: ToolResultOutput = submission.isError
    ? { type: 'error-json', value: submission.output }
    : defaultModelOutput(submission.output);
  return answer(ctx, call, output, 'client-result', submission.output);
}

/** Runs the tool in its own `executeTool` activity, with the tool's activity options. */
async function executeCall(ctx: StepContext, call: ValidCall, args: JsonValue): Promise<SettledCall> {
  const { state, step, run } = ctx;
  const { toolCallId, toolName } = call;
  const { executeTool } = proxyActivities<Activities>(toolActivityOptions(ctx.description, call));
  state.toolStarted(step, call);
  let result;
  try {
    result = await executeTool({
      agentName: ctx.description.agentName,
      run,
      step,
      messageCount: ctx.messageCount,
      toolCallId,
      toolName,
      args,
      // Stable across activity retries and replays; unique per tool call of this workflow.
      idempotencyKey: `${run.workflowId}:${step}:${toolCallId}`,
      mark: ctx.mark,
    });
  } finally {
    state.toolFinished(toolCallId);
  }
  if (result.kind === 'denied') {
    const output: ToolResultOutput = { type: 'error-text', value: result.error.message };
    return { ...answer(ctx, call, output, 'denied', result.error.message), denied: result.error };
  }
  const output = result.modelOutput ?? defaultModelOutput(result.output);
  return { ...answer(ctx, call, output, result.kind, result.output), outputId: result.outputId };
}
