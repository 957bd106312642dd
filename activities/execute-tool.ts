import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { checkToolCall } from '../src/tool/check-tool-call.js';
import { runToolPipeline, type ToolPipelineOutcome } from '../src/tool/pipeline.js';
import { getGlobalLogger } from '../src/logger.js';
import { createToolExecuteOptions } from '../src/tool/execute-options.js';
import { toJsonValue } from '../src/tool/json-safe.js';
import type { AnyTool, ToolCheckpoint } from '../src/tool/tool.js';
import type { Agent } from '../src/agent/agent.js';
import { DEFAULT_MCP_TIMEOUT_MS } from '../src/mcp/server-operations.js';
import { mcpToolOrigin } from '../src/mcp/tools-from-listing.js';
import type { McpCallHooks } from '../src/tool/execute-options.js';
import { CheckpointTooLargeError } from '../src/tool/errors/checkpoint-too-large-error.js';
import {
  FailureType,
  jsonBytes,
  defaultModelOutput,
  type ExecuteToolInput,
  type ExecuteToolResult,
  type JsonValue,
  type ToolResultOutput,
} from '../src/protocol/index.js';
import { type ActivityDependencies, requireAgent, runToolSet, toToolContext } from './dependencies.js';
import { ElicitationSession } from './mcp-elicitation.js';
import { startHeartbeating } from './heartbeat.js';
import { ProgressReporter } from './progress.js';
import { routingLookup, runRouting } from './run-routing.js';

/**
 * Runs one tool call through the tool library's pipeline (hooks, output validation, overrides, error results).
 * Heartbeats while it runs so cancellation reaches the tool's abort signal; each yield of a streaming tool is
 * heartbeated as a checkpoint, and a retried attempt gets the last one back in `options.checkpoint`.
 */
export function createExecuteTool(deps: ActivityDependencies) {
  return async function executeTool(input: ExecuteToolInput): Promise<ExecuteToolResult> {
    const ctx = Context.current();
    const agent = requireAgent(deps, input.agentName);
    const resumeFrom = lastCheckpoint(ctx.info.heartbeatDetails);
    // Heartbeat from the start (carrying the previous attempt's checkpoint until the tool yields again): reading
    // the transcript after a crash may wait for the run's query to be answered.
    let checkpoint: ToolCheckpoint | undefined = resumeFrom;
    const heartbeat = startHeartbeating(() => checkpoint);
    try {
      const transcript = await deps.transcripts.read(
        input.run,
        input.messageCount,
        input.mark ? { mark: input.mark } : {},
      );
      const tools = await runToolSet(deps, agent, input.run, transcript.run, input.mcp);
      // A routed run also executes pooled tools (callTool's targets), which an explicit pool may hold unregistered.
      const routing = runRouting(deps, agent, tools, transcript.run);
      const check = await checkToolCall(routing ? routingLookup(routing) : tools, input.toolName, input.args);
      if (check.kind !== 'valid') {
        // The generate activity checked this call; a mismatch means the worker's tools changed mid-run.
        return {
          version: 1,
          kind: 'error',
          output: { error: true, message: check.message, toolName: input.toolName },
          outputId: randomUUID(),
        };
      }

      const abortController = new AbortController();
      const onCancel = () => abortController.abort(ctx.cancellationSignal.reason);
      if (ctx.cancellationSignal.aborted) onCancel();
      else ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });

      const progress = new ProgressReporter(input.run, input.toolCallId, deps.progressIntervalMs);
      const mcpCall = mcpCallHooks(deps, agent, input, check.tool, abortController, progress);
      try {
        const settled = await settle(
          runToolPipeline({
            tool: check.tool,
            args: check.args,
            toolCallId: input.toolCallId,
            agent: { name: agent.name },
            agentHooks: agent.hooks,
            ...(resumeFrom ? { resumeFrom } : {}),
            onPreliminary: (value, seq) => {
              // The checkpoint is the heartbeat: a retried attempt gets it back as `options.checkpoint`.
              const json = toJson(value);
              const bytes = jsonBytes(json);
              if (bytes > deps.limits.checkpointBytes) {
                throw new CheckpointTooLargeError(input.toolName, bytes, deps.limits.checkpointBytes);
              }
              checkpoint = { seq, value: json };
              heartbeat.beat();
              progress.report(seq, checkpoint.value as JsonValue);
            },
            options: createToolExecuteOptions({
              ...toToolContext(transcript.run),
              toolName: input.toolName,
              toolCallId: input.toolCallId,
              messages: transcript.messages,
              operationId: input.run.workflowId,
              abortController,
              attempt: ctx.info.attempt,
              ...(resumeFrom ? { checkpoint: resumeFrom } : {}),
              idempotencyKey: input.idempotencyKey,
              ...(mcpCall ? { mcpCall: mcpCall.hooks } : {}),
            }),
          }),
        );
        // The server asked a person something and the call ended on it (the run said "pending", or refused the
        // question): that, not how the aborted call failed, is the outcome.
        const ended = ctx.cancellationSignal.aborted ? undefined : mcpCall?.elicitation.end;
        if (ended?.kind === 'pending') {
          return { version: 1, kind: 'elicitation-pending', elicitationId: ended.elicitationId };
        }
        if (!ended && !settled.ok) throw settled.error;
        const outcome = ended
          ? refusedQuestion(input.toolCallId, input.toolName, ended.reason)
          : (settled as { value: ToolPipelineOutcome }).value;
        if (outcome.kind === 'denied') {
          const { error } = outcome;
          return {
            version: 1,
            kind: 'denied',
            error: {
              toolName: input.toolName,
              message: error.message,
              code: String(error.code),
              httpStatus: error.httpStatus,
            },
          };
        }
        const result = sizeChecked(input.toolName, deps.limits.toolOutputBytes, {
          version: 1,
          kind: outcome.kind,
          output: toJson(outcome.output),
          // Recorded only when it differs from the default encoding, so a large output is stored once.
          ...(check.tool.toModelOutput ? { modelOutput: outcome.modelOutput } : {}),
          outputId: randomUUID(),
        });
        if (mcpCall) {
          // An MCP call may have changed the server's tools: the next model call should see the new listing.
          const stale = await deps.mcp.staleServers(agent, input.run, input.mcp);
          if (stale.length > 0) result.staleMcpServers = stale;
        }
        if (result.kind === 'ok' || result.kind === 'error') {
          // What the workflow will put in the transcript: the next model call on this worker needs no query.
          deps.transcripts.rememberToolOutput(
            input.run,
            input.toolCallId,
            result.outputId,
            (result.modelOutput ? toJson(result.modelOutput) : defaultModelOutput(result.output)) as ToolResultOutput,
          );
        }
        return result;
      } finally {
        ctx.cancellationSignal.removeEventListener('abort', onCancel);
        await progress.stop();
      }
    } finally {
      heartbeat.stop();
    }
  };
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

function lastCheckpoint(details: unknown): ToolCheckpoint | undefined {
  if (details && typeof details === 'object' && typeof (details as ToolCheckpoint).seq === 'number') {
    return details as ToolCheckpoint;
  }
  return undefined;
}

/**
 * Tool outputs are recorded in history as JSON: `toJsonValue` keeps what JSON can carry (and turns a circular
 * reference into a marker instead of failing the activity).
 */
function toJson(value: unknown): JsonValue {
  return toJsonValue(value) ?? null;
}

/**
 * Flags an output that would exceed Temporal's payload limits before it is recorded. The model gets an error
 * naming the tool and the size; the run goes on.
 */
function sizeChecked(
  toolName: string,
  maxBytes: number,
  result: Extract<ExecuteToolResult, { kind: 'ok' | 'error' }>,
): Extract<ExecuteToolResult, { kind: 'ok' | 'error' }> {
  const bytes = jsonBytes(result);
  if (bytes <= maxBytes) return result;
  const message =
    `Tool '${toolName}' returned ${bytes} bytes, over the ${maxBytes}-byte limit for a recorded tool result. ` +
    'Return a smaller output (a summary, a page of results, or a reference such as a file path or URL).';
  getGlobalLogger().warn(message);
  return {
    version: 1,
    outputId: result.outputId,
    kind: 'error',
    output: { error: true, name: 'ToolOutputTooLargeError', message, toolName, code: FailureType.ToolOutputTooLarge },
  };
}
