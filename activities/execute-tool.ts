import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Agent } from '../src/agent/agent.js';
import { DEFAULT_MCP_TIMEOUT_MS } from '../src/mcp/server-operations.js';
import { mcpToolOrigin } from '../src/mcp/tools-from-listing.js';
import {
  defaultModelOutput,
  FailureType,
  type ExecuteToolInput,
  type ExecuteToolResult,
  type JsonValue,
  type ToolResultOutput,
} from '../src/protocol/index.js';
import { createToolExecuteOptions, type McpCallHooks } from '../src/tool/execute-options.js';
import { runToolPipeline, type RunToolPipelineInput, type ToolPipelineOutcome } from '../src/tool/pipeline.js';
import type { AnyTool } from '../src/tool/tool.js';
import { type ActivityDependencies, requireAgent, toToolContext } from '../src/runtime/dependencies.js';
import { startHeartbeating } from '../src/runtime/heartbeat.js';
import { ProgressReporter } from '../src/runtime/progress-reporter.js';
import { liveRunPublisher } from '../src/live/live-run-publisher.js';
import { ElicitationSession } from './mcp-elicitation.js';
import { checkExecutedCall, readRunCall, type RunCall } from './run-call.js';
import { ToolCheckpoints } from './tool-checkpoints.js';
import { deniedResult, sizeChecked, toJson, toolErrorResult, type RecordedToolResult } from './tool-results.js';

/** A checked call, ready to run: the run as the activity read it, the tool and its parsed arguments. */
interface CheckedCall {
  agent: Agent;
  input: ExecuteToolInput;
  call: RunCall;
  tool: AnyTool;
  args: unknown;
}

/**
 * Runs one tool call through the tool library's pipeline (hooks, output validation, overrides, error results).
 * Heartbeats while it runs so cancellation reaches the tool's abort signal; each yield of a streaming tool is
 * heartbeated as a checkpoint, and a retried attempt gets the last one back in `options.checkpoint`.
 */
export function createExecuteTool(deps: ActivityDependencies) {
  return async function executeTool(input: ExecuteToolInput): Promise<ExecuteToolResult> {
    const agent = requireAgent(deps, input.agentName);
    const { heartbeatDetails } = Context.current().info;
    const checkpoints = new ToolCheckpoints(input.toolName, deps.limits.checkpointBytes, heartbeatDetails);
    // Heartbeat from the start (carrying the previous attempt's checkpoint until the tool yields again): reading
    // the transcript after a crash may wait for the run's query to be answered.
    const heartbeat = startHeartbeating(() => checkpoints.current);
    try {
      const call = await readRunCall(deps, agent, input);
      const check = await checkExecutedCall(deps, agent, call, input);
      // The generate activity checked this call; a mismatch means the worker's tools changed mid-run.
      if (check.kind !== 'valid') return toolErrorResult(input.toolName, check.message);
      const checked = { agent, input, call, tool: check.tool, args: check.args };
      return await runCheckedCall(deps, checked, checkpoints, heartbeat);
    } finally {
      heartbeat.stop();
    }
  };
}

/** Runs the checked tool, tied to the activity's cancellation, reporting its progress; then records its result. */
async function runCheckedCall(
  deps: ActivityDependencies,
  checked: CheckedCall,
  checkpoints: ToolCheckpoints,
  heartbeat: { beat(): void },
): Promise<ExecuteToolResult> {
  const { input } = checked;
  const { cancellationSignal } = Context.current();
  const cancellation = linkedToCancellation(cancellationSignal);
  // Protocol 4: progress goes on the run's stream (or its live stream on Redis); earlier ones, by the v0.3.0 signal.
  const streamed = input.protocol === 4 ? input : undefined;
  const live = liveRunPublisher(deps, streamed?.live, input.run.workflowId, Context.current().info.attempt);
  const progress = new ProgressReporter(
    input.run,
    input.toolCallId,
    deps.progressIntervalMs,
    streamed?.progressToken,
    live,
  );
  const mcpCall = mcpCallHooks(deps, checked.agent, input, checked.tool, cancellation.controller, progress);
  try {
    const pipeline = pipelineInput(checked, checkpoints, cancellation.controller, mcpCall?.hooks, (seq, value) => {
      heartbeat.beat();
      progress.report(seq, value);
    });
    const settled = await settle(runToolPipeline(pipeline));
    // The server asked a person something and the call ended on it (the run said "pending", or refused the
    // question): that, not how the aborted call failed, is the outcome.
    const ended = cancellationSignal.aborted ? undefined : mcpCall?.elicitation.end;
    if (ended?.kind === 'pending') {
      return { version: 1, kind: 'elicitation-pending', elicitationId: ended.elicitationId };
    }
    if (!ended && !settled.ok) throw settled.error;
    const outcome = ended
      ? refusedQuestion(input.toolCallId, input.toolName, ended.reason)
      : (settled as { value: ToolPipelineOutcome }).value;
    if (outcome.kind === 'denied') return deniedResult(input.toolName, outcome.error);
    return await recordResult(deps, checked, outcome, mcpCall !== undefined);
  } finally {
    cancellation.dispose();
    await progress.stop();
  }
}

/** An abort controller for the tool, aborted (with Temporal's reason) when the activity is cancelled. */
function linkedToCancellation(signal: AbortSignal): { controller: AbortController; dispose(): void } {
  const controller = new AbortController();
  const onCancel = () => controller.abort(signal.reason);
  if (signal.aborted) onCancel();
  else signal.addEventListener('abort', onCancel, { once: true });
  return { controller, dispose: () => signal.removeEventListener('abort', onCancel) };
}

/** The pipeline's input: the tool, its arguments, the agent's hooks and the tool's execute options. */
function pipelineInput(
  checked: CheckedCall,
  checkpoints: ToolCheckpoints,
  abortController: AbortController,
  mcpCall: McpCallHooks | undefined,
  onCheckpoint: (seq: number, value: JsonValue) => void,
): RunToolPipelineInput {
  const { agent, input, call } = checked;
  const resumeFrom = checkpoints.resumeFrom;
  return {
    tool: checked.tool,
    args: checked.args,
    toolCallId: input.toolCallId,
    agent: { name: agent.name },
    agentHooks: agent.hooks,
    ...(resumeFrom ? { resumeFrom } : {}),
    // The checkpoint is the heartbeat: a retried attempt gets it back as `options.checkpoint`.
    onPreliminary: (value, seq) => onCheckpoint(seq, checkpoints.record(value, seq)),
    options: createToolExecuteOptions({
      ...toToolContext(call.run),
      toolName: input.toolName,
      toolCallId: input.toolCallId,
      messages: call.messages,
      operationId: input.run.workflowId,
      abortController,
      attempt: Context.current().info.attempt,
      ...(resumeFrom ? { checkpoint: resumeFrom } : {}),
      idempotencyKey: input.idempotencyKey,
      ...(mcpCall ? { mcpCall } : {}),
    }),
  };
}

/**
 * The result as the run records it, size-checked. After an MCP call, the servers whose tools changed are named (the
 * next model call should see the new listing); what the model will read is kept for the next model call on this
 * worker, which then needs no query.
 */
async function recordResult(
  deps: ActivityDependencies,
  checked: CheckedCall,
  outcome: Exclude<ToolPipelineOutcome, { kind: 'denied' }>,
  mcpCall: boolean,
): Promise<RecordedToolResult> {
  const { agent, input, tool } = checked;
  const result = sizeChecked(input.toolName, deps.limits.toolOutputBytes, {
    version: 1,
    kind: outcome.kind,
    output: toJson(outcome.output),
    // Recorded only when it differs from the default encoding, so a large output is stored once.
    ...(tool.toModelOutput ? { modelOutput: outcome.modelOutput } : {}),
    outputId: randomUUID(),
  });
  if (mcpCall) {
    const stale = await deps.mcp.staleServers(agent, input.run, input.mcp);
    if (stale.length > 0) result.staleMcpServers = stale;
  }
  const modelOutput = result.modelOutput ? toJson(result.modelOutput) : defaultModelOutput(result.output);
  deps.transcripts.rememberToolOutput(input.run, input.toolCallId, result.outputId, modelOutput as ToolResultOutput);
  return result;
}

/**
 * What an MCP tool's call needs from this activity, passed as the `mcpCall` field of its execute options: a request
 * timeout that ends before the activity's own, the session that puts the server's questions to the run (holding
 * each for a while, then letting the run wait), and progress reported like a streaming tool's. Undefined for other
 * tools.
 */
function mcpCallHooks(
  deps: ActivityDependencies,
  agent: Agent,
  input: ExecuteToolInput,
  tool: AnyTool,
  abort: AbortController,
  progress: ProgressReporter,
): { hooks: McpCallHooks; elicitation: ElicitationSession } | undefined {
  const origin = mcpToolOrigin(tool);
  if (!origin) return undefined;
  const info = Context.current().info;
  // What is left of this attempt's start-to-close, with a margin to report the outcome.
  const remaining = info.startToCloseTimeoutMs - (Date.now() - info.currentAttemptScheduledTimestampMs) - 5_000;
  const serverTimeout = agent.mcp?.timeoutOf(origin.serverName) ?? DEFAULT_MCP_TIMEOUT_MS;
  const elicitation = new ElicitationSession({
    run: input.run,
    toolCallId: input.toolCallId,
    toolName: input.toolName,
    holdMs: Math.max(0, Math.min(deps.elicitationHoldMs, remaining)),
    abort,
  });
  let seq = 0;
  return {
    elicitation,
    hooks: {
      timeoutMs: Math.max(1_000, Math.min(serverTimeout, remaining)),
      onElicitation: elicitation.handler,
      onProgress: (update) => progress.report(++seq, toJson(update)),
    },
  };
}

/** The tool result of a call whose server asked a question the run would not keep: the model reads why. */
function refusedQuestion(toolCallId: string, toolName: string, reason: string): ToolPipelineOutcome {
  const message =
    `The MCP server of '${toolName}' asked a person something the run could not keep (${reason}). It was answered ` +
    "'cancel' and the call was ended; try another way, or ask the user directly.";
  const output = {
    error: true as const,
    name: 'ElicitationRefused',
    message,
    toolCallId,
    toolName,
    code: FailureType.ElicitationRefused,
  };
  return { kind: 'error', output, modelOutput: defaultModelOutput(output) };
}

/** A promise's outcome as a value, so the caller decides what a failure means after it settles. */
async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
