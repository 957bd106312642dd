import { condition, proxyActivities, proxyLocalActivities, uuid4, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  DEFAULT_TOOL_CONCURRENCY,
  MAX_ELICITATION_REISSUES,
  defaultModelOutput,
  jsonBytes,
  previewOutput,
  type AgentDescription,
  type CheckedToolCall,
  type ExecuteToolInput,
  type JsonValue,
  type PendingApproval,
  type RunRef,
  type ToolCallOutcome,
  type ToolCallRoute,
  type ToolDeniedData,
  type ToolResultOutput,
  type TranscriptDelta,
  type TranscriptMark,
} from '../src/protocol/index.js';
import { localToolActivityOptions, toolActivityOptions } from './activity-options.js';
import { waitForAnswer } from './elicitation-handlers.js';
import { legacyBoundsConcurrency, legacyRunsLocally, legacyWaitForAnswer } from './legacy/tool-calls.js';
import type { AgentRunState, StepToolResults } from './run-state.js';
import { searchRequired, searchTools, targetCall } from './tool-search.js';
import { ToolSlots } from './tool-slots.js';

type Activities = ReturnType<typeof createActivities>;
/** A checked call; `via` marks a routed `callTool`'s target (see `targetCall`). */
type SettlingCall = CheckedToolCall & { via?: ExecuteToolInput['via'] };
type ValidCall = Extract<SettlingCall, { status: 'valid' }>;

// The agent's authorizeDecision hook runs in the workflow task that received the decision.
const { authorizeDecision } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5 },
});

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

/** A step's context plus the slots its tool activities share. */
interface CallContext extends StepContext {
  slots: ToolSlots;
}

/** How one tool call ended: the result part the model sees, the outcome, and what the runtime needs besides. */
interface SettledCall {
  part: { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolResultOutput };
  outcome: ToolCallOutcome;
  /** Set when the tool threw `ToolDeniedError`: the whole run ends with it. */
  denied?: ToolDeniedData;
  /** Set for results of `executeTool`: the next model call references them instead of copying them. */
  outputId?: string;
  /** MCP servers whose tools changed during the call. */
  staleMcpServers?: string[];
}

/** What a step's tool calls produced: the tool message, the next step's transcript delta, and a denial if any. */
export interface SettledStep extends StepToolResults {
  delta: TranscriptDelta | undefined;
  denied: ToolDeniedData | undefined;
  /** MCP servers to re-list before the next model call. */
  staleMcpServers: string[];
}

/**
 * Runs, waits for, or answers every tool call of a step, in parallel. Results keep call order. `allSettled`, not
 * `all`: when the run is cancelled (or one call fails), every sibling tool activity finishes its cancellation and
 * cleanup before the step ends; then the first failure is rethrown.
 */
export function settleToolCalls(
  ctx: StepContext,
  calls: CheckedToolCall[],
  argsById: Map<string, JsonValue>,
): Promise<SettledStep> {
  const limit = ctx.description.toolConcurrency ?? DEFAULT_TOOL_CONCURRENCY;
  // Only a step with more calls than the limit can differ from v0.1.0, which ran them all at once.
  const bounded = calls.length > limit && (ctx.state.protocol >= 4 || legacyBoundsConcurrency());
  const callCtx: CallContext = { ...ctx, slots: new ToolSlots(bounded ? limit : Number.POSITIVE_INFINITY) };
  if (calls.length === 1) {
    // One call has no sibling to wait for: the same result without `Promise.allSettled` and its promises (each
    // promise the workflow makes costs a captured stack trace, and a pending one keeps it while the run waits).
    const only = calls[0]!;
    return settleToolCall(callCtx, only, argsById.get(only.toolCallId) ?? null).then((s) => stepResult(ctx, [s]));
  }
  return settleAll(ctx, callCtx, calls, argsById);
}

/** Several calls (or none): all at once, each to its end, then the first failure is rethrown. */
async function settleAll(
  ctx: StepContext,
  callCtx: CallContext,
  calls: CheckedToolCall[],
  argsById: Map<string, JsonValue>,
): Promise<SettledStep> {
  // Each call reaches its first command (timer or activity) synchronously, in call order: replay depends on it.
  const outcomes = await Promise.allSettled(
    calls.map((call) => settleToolCall(callCtx, call, argsById.get(call.toolCallId) ?? null)),
  );
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (rejected) throw rejected.reason;
  return stepResult(
    ctx,
    outcomes.map((o) => (o as PromiseFulfilledResult<SettledCall>).value),
  );
}

/** The step's tool message parts, outcomes, next delta and denial, from its settled calls in call order. */
function stepResult(ctx: StepContext, settled: SettledCall[]): SettledStep {
  return {
    parts: settled.map((s) => s.part),
    outcomes: settled.map((s) => s.outcome),
    delta:
      settled.length === 0
        ? undefined
        : {
            at: ctx.state.messages.length,
            content: settled.map(({ part, outputId }) => deltaPart(part, outputId)),
          },
    denied: settled.find((s) => s.denied)?.denied,
    staleMcpServers: [...new Set(settled.flatMap((s) => s.staleMcpServers ?? []))],
  };
}

/**
 * How the next model call's input carries one result: an executed result by reference to its output (the worker
 * that ran the tool kept it), a small one inline, and a large one made here (a client-side result) as a pointer to
 * the run, so the worker reads it through the transcript query. Either way the `generate` input stays small.
 */
function deltaPart(part: SettledCall['part'], outputId: string | undefined): TranscriptDelta['content'][number] {
  const { toolCallId, toolName } = part;
  if (outputId) return { type: 'tool-result-ref', toolCallId, toolName, outputId };
  if (jsonBytes(part) <= INLINE_DELTA_BYTES) return part;
  return { type: 'tool-result-in-run', toolCallId, toolName };
}

/** Results up to this many bytes travel inline in the next `generate` input. */
const INLINE_DELTA_BYTES = 16_384;

/**
 * One call: invalid calls are answered at once; approval comes first; then the client or a tool activity. Not
 * `async` itself, so a call that needs no approval costs no promise of its own; what happens after an approval keeps
 * its awaits as released (commands issued after an await must keep their order under replay).
 */
function settleToolCall(ctx: CallContext, call: SettlingCall, args: JsonValue): Promise<SettledCall> {
  // Tool routing (a routed run's searchTools/callTool, marked by the generate activity; never in older histories).
  if (call.route) return settleRoutedCall(ctx, call, call.route, args);
  if (call.status === 'invalid')
    return Promise.resolve(answer(ctx, call, { type: 'error-text', value: call.error }, 'invalid', call.error));
  if (call.needsApproval) return settleApprovedCall(ctx, call, args);
  if (call.clientSide) return awaitClientResult(ctx, call, args);
  return executeCall(ctx, call, args);
}

/** A call that needs approval: waits for the decision, then runs (or is answered as denied). */
async function settleApprovedCall(ctx: CallContext, call: ValidCall, args: JsonValue): Promise<SettledCall> {
  const denial = await awaitApproval(ctx, call, args);
  if (denial !== undefined) return answer(ctx, call, { type: 'execution-denied', reason: denial }, 'denied', denial);
  if (call.clientSide) return await awaitClientResult(ctx, call, args);
  return await executeCall(ctx, call, args);
}

/**
 * A routed call. `searchTools`: ranked by the `rankTools` activity (see `tool-search.ts`). `callTool`: the run's
 * searched check, then the target exactly as a direct call — its approval (the pending request shows the target
 * and its arguments), its own `executeTool` activity and options — and its result is `callTool`'s.
 */
async function settleRoutedCall(
  ctx: CallContext,
  call: CheckedToolCall,
  route: ToolCallRoute,
  args: JsonValue,
): Promise<SettledCall> {
  const refuse = (error: string) => answer(ctx, call, { type: 'error-text', value: error }, 'invalid', error);
  // "Search first" comes before the worker's own refusal of the target's arguments, as in the in-process router.
  const unsearched = searchRequired(ctx.state.routing, route);
  if (call.status === 'invalid') return refuse(unsearched ?? call.error);
  if (unsearched !== undefined) return refuse(unsearched);
  if (route.kind === 'search') {
    const found = await searchTools({ ...ctx, agentName: ctx.description.agentName }, call, route);
    const settled = answer(ctx, call, found.output, found.outcome, found.event);
    return found.outputId ? { ...settled, outputId: found.outputId } : settled;
  }
  const settled = await settleToolCall(ctx, targetCall(call, route), route.args ?? modelArgs(args));
  // The transcript pairs the result with the model's callTool call.
  return { ...settled, part: { ...settled.part, toolName: call.toolName } };
}

/**
 * The target's arguments of a `callTool` call whose route carries none: the `args` of the model's call (an object,
 * or a JSON string of one), which `generate` checked unchanged (see `ToolCallRoute`). Parsing is deterministic, and
 * a route without args exists only from 0.4.0 workflows, so no older history reaches the string case.
 */
function modelArgs(callArgs: JsonValue): JsonValue {
  let args = isObject(callArgs) ? callArgs.args : undefined;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args) as JsonValue;
    } catch {
      return {};
    }
  }
  return isObject(args) ? args : {};
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  // A random token (deterministic in the workflow) that only the request reveals: a decision must echo it.
  const token = state.approvals.isBound() ? uuid4() : undefined;
  const request = state.approvals.request({ toolCallId, toolName, args, step }, state.clock.now(), timeoutMs, token);
  state.events.emit({
    type: 'approval-requested',
    step,
    toolCallId,
    toolName,
    args: previewOutput(args),
    ...(token !== undefined ? { token } : {}),
  });
  const decided = await awaitDecision(ctx, request, timeoutMs);
  const record = state.approvals.settle(toolCallId, state.clock.now(), decided, timeoutMs);
  state.events.emit({
    type: 'approval-decided',
    toolCallId,
    toolName,
    approved: record.approved,
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.approver !== undefined ? { approver: record.approver } : {}),
    ...(record.approverVerified ? { approverVerified: true } : {}),
    ...(record.timedOut ? { timedOut: true } : {}),
  });
  return record.approved ? undefined : (record.reason ?? 'The user denied this tool call.');
}

/**
 * Waits until a decision arrives (true) or the timeout passes (false). With an `authorizeDecision` hook, each
 * decision is checked first; a refused one is discarded and the wait goes on until the same deadline. Cancelling
 * the run rejects the wait, so no tool runs.
 */
async function awaitDecision(
  ctx: StepContext,
  request: PendingApproval,
  timeoutMs: number | undefined,
): Promise<boolean> {
  const { approvals, events } = ctx.state;
  const { toolCallId, toolName } = request;
  const arrived = () => approvals.hasDecision(toolCallId);
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  for (;;) {
    const remaining = deadline === undefined ? undefined : deadline - Date.now();
    const decided =
      remaining === undefined
        ? (await condition(arrived), true)
        : remaining > 0
          ? await condition(arrived, remaining)
          : arrived();
    if (!decided || !ctx.description.approval.authorize) return decided;
    const decision = approvals.decisionFor(toolCallId)!;
    const calledAt = ctx.state.clock.ms();
    let verdict: Awaited<ReturnType<typeof authorizeDecision>>;
    try {
      verdict = await authorizeDecision({
        agentName: ctx.description.agentName,
        decision,
        request,
        run: { ...ctx.run, ...ctx.state.run, agentName: ctx.description.agentName },
      });
    } finally {
      ctx.state.clock.holdAt(calledAt);
    }
    if (verdict.allowed) {
      if (verdict.approver !== undefined) approvals.vouch(toolCallId, verdict.approver);
      return true;
    }
    const reason = verdict.reason ?? 'Not authorized.';
    approvals.refuse(toolCallId, reason);
    events.emit({
      type: 'approval-refused',
      toolCallId,
      toolName,
      reason,
      ...(decision.approver !== undefined ? { approver: decision.approver } : {}),
    });
  }
}

/** Pauses the call until the client submits its result (`run.submitToolResult`). */
async function awaitClientResult(ctx: StepContext, call: ValidCall, args: JsonValue): Promise<SettledCall> {
  const { state, step } = ctx;
  const { toolCallId, toolName } = call;
  // `requestedAt` is state only (the state query's answer): no command depends on it.
  state.clientTools.request({ toolCallId, toolName, args, step, requestedAt: state.clock.now().toISOString() });
  state.events.emit({ type: 'tool-result-requested', step, toolCallId, toolName, args: previewOutput(args) });
  await condition(() => state.clientTools.hasResult(toolCallId));
  const submission = state.clientTools.take(toolCallId);
  const output: ToolResultOutput = submission.isError
    ? { type: 'error-json', value: submission.output }
    : defaultModelOutput(submission.output);
  return answer(ctx, call, output, 'client-result', submission.output);
}

/**
 * Runs the tool in its own `executeTool` activity, with the tool's activity options, once a slot is free. An MCP
 * tool whose server waits for a person's answer may end its activity early (`elicitation-pending`, a value of the
 * activity's result): the run waits for the answer — not counted against the tool's timeouts, and up to the
 * question's expiry — and runs the call again, answered from the record.
 *
 * Not `async` itself: with a free slot (the common case) the call is the activity's promise and one `then`, which
 * resumes in the same microtask an `await` would, so commands keep their order, with one promise (and its captured
 * stack) fewer than an `async` function and its `await`. A call that waits for a slot or for an answer takes the
 * loop below, as before.
 */
function executeCall(ctx: CallContext, call: ValidCall, args: JsonValue): Promise<SettledCall> {
  const slot = ctx.slots.acquire();
  if (slot) return executeCallLoop(ctx, call, args, slot, undefined);
  const tool = startToolCall(ctx, call, args);
  const calledAt = ctx.state.clock.ms();
  return tool.executeTool(tool.input).then(
    (result) => {
      resumed(ctx, tool, calledAt);
      if (result.kind === 'elicitation-pending') return executeCallLoop(ctx, call, args, undefined, { tool, result });
      finishToolCall(ctx, call.toolCallId);
      return settledFrom(ctx, call, result);
    },
    (error: unknown) => {
      resumed(ctx, tool, calledAt);
      finishToolCall(ctx, call.toolCallId);
      throw error;
    },
  );
}

type ToolResult = Awaited<ReturnType<Activities['executeTool']>>;

/** What running one call needs, made as the call starts (in the same task as its first `executeTool` command). */
interface StartedToolCall {
  executeTool: Activities['executeTool'];
  /** A local activity (see {@link resumed}). */
  local: boolean;
  input: ExecuteToolInput;
}

/** The call's activity and input; marks it started (and opens its progress on the run's stream). */
function startToolCall(ctx: CallContext, call: ValidCall, args: JsonValue): StartedToolCall {
  const { state, step, run } = ctx;
  const { toolCallId, toolName } = call;
  const { executeTool, local } = toolProxy(ctx.state, ctx.description, call);
  const mcp = state.listingRefs();
  state.toolStarted(step, call);
  const base = {
    agentName: ctx.description.agentName,
    run,
    step,
    messageCount: ctx.messageCount,
    toolCallId,
    toolName,
    args,
    // Stable across activity retries and replays, unique per tool call and run: a reused workflow id starts a
    // run with another first execution id.
    idempotencyKey: `${run.workflowId}:${workflowInfo().firstExecutionRunId}:${step}:${toolCallId}`,
    mark: ctx.mark,
    ...(mcp.length > 0 ? { mcp } : {}),
    ...(call.via ? { via: call.via } : {}),
  };
  if (state.protocol < 4) return { executeTool, local, input: base };
  // The call's activity publishes its progress on the run's stream with this token (see RunStream).
  const progressToken = state.stream!.openCall(toolCallId);
  const live = state.live ? { live: state.live.runId } : {};
  return { executeTool, local, input: { ...base, protocol: 4, progressToken, ...live } };
}

/**
 * The call's loop when it has to wait: for a slot (`slot`), or, its activity having answered `elicitation-pending`
 * (`pending`), for the answer and then again for the activity.
 */
async function executeCallLoop(
  ctx: CallContext,
  call: ValidCall,
  args: JsonValue,
  slot: Promise<void> | undefined,
  pending: { tool: StartedToolCall; result: ToolResult } | undefined,
): Promise<SettledCall> {
  const { state } = ctx;
  if (slot) await slot;
  const tool = pending?.tool ?? startToolCall(ctx, call, args);
  let result;
  try {
    for (let reissues = 0; ; reissues++) {
      if (reissues === 0 && pending) {
        result = pending.result;
      } else {
        const calledAt = state.clock.ms();
        try {
          result = await tool.executeTool(tool.input);
        } finally {
          resumed(ctx, tool, calledAt);
        }
      }
      if (result.kind !== 'elicitation-pending') break;
      if (reissues >= MAX_ELICITATION_REISSUES) return answer(ctx, call, reissueLimit(), 'error', reissueLimit().value);
      const { elicitationId } = result;
      // The wait also answers `cancel` when the question expires.
      if (state.protocol >= 4) await waitForAnswer(state, elicitationId);
      else await legacyWaitForAnswer(state, elicitationId);
    }
  } finally {
    finishToolCall(ctx, call.toolCallId);
  }
  return settledFrom(ctx, call, result);
}

/** The call's activity ended (however it ended): withdrawn questions answered, progress closed, its slot freed. */
function finishToolCall(ctx: CallContext, toolCallId: string): void {
  const { state } = ctx;
  state.toolFinished(toolCallId);
  // Questions the server withdrew, or asked as the call ended, wait for nothing now (protocol 4).
  if (state.protocol >= 4 && state.elicitations.waitsFor(toolCallId)) {
    for (const id of state.elicitations.withdrawCall(toolCallId)) {
      state.events.emit({ type: 'elicitation-answered', id, action: 'cancel', withdrawn: true });
    }
  }
  state.stream?.closeCall(toolCallId);
  ctx.slots.release();
}

/** The settled call from the activity's final result. */
function settledFrom(ctx: CallContext, call: ValidCall, result: Exclude<ToolResult, { kind: 'elicitation-pending' }>) {
  if (result.kind === 'denied') {
    const output: ToolResultOutput = { type: 'error-text', value: result.error.message };
    return { ...answer(ctx, call, output, 'denied', result.error.message), denied: result.error };
  }
  const output = result.modelOutput ?? defaultModelOutput(result.output);
  return {
    ...answer(ctx, call, output, result.kind, result.output),
    outputId: result.outputId,
    ...(result.staleMcpServers ? { staleMcpServers: result.staleMcpServers } : {}),
  };
}

/**
 * The call's `executeTool`: a local activity when the checked call says `local: true`, else an activity with the
 * tool's options.
 */
function toolProxy(
  state: AgentRunState,
  description: AgentDescription,
  call: ValidCall,
): Pick<StartedToolCall, 'executeTool' | 'local'> {
  if (call.activity?.local === true && (state.protocol >= 4 || legacyRunsLocally())) {
    return { executeTool: proxyLocalActivities<Activities>(localToolActivityOptions(call)).executeTool, local: true };
  }
  return { executeTool: proxyActivities<Activities>(toolActivityOptions(description, call)).executeTool, local: false };
}

/** After a local tool's activity settled, the run's clock reads the time it was called at (see RunClock). */
function resumed(ctx: CallContext, tool: StartedToolCall, calledAt: number): void {
  if (tool.local) ctx.state.clock.holdAt(calledAt);
}

function reissueLimit(): { type: 'error-text'; value: string } {
  return {
    type: 'error-text',
    value:
      `The tool's MCP server kept asking new questions: the call was run ${MAX_ELICITATION_REISSUES + 1} times ` +
      'waiting for answers, and was given up.',
  };
}
