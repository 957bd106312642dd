import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Agent } from '../src/agent/agent.js';
import { checkToolCall, type ToolLookup } from '../src/tool/check-tool-call.js';
import { evaluateNeedsApproval } from '../src/tool/approval.js';
import { toJsonValue } from '../src/tool/json-safe.js';
import { toolModelSpec } from '../src/tool/tool-spec.js';
import { getGlobalLogger } from '../src/logger.js';
import { ApplicationFailure } from '@temporalio/common';
import {
  callModel,
  classifyModelError,
  ModelFailureType,
  type RawToolCall,
  type ToolSpec,
} from '../src/models/call-model.js';
import type { ResolvedLanguageModel } from '../src/models/provider-registry.js';
import {
  jsonBytes,
  type CheckedToolCall,
  type GenerateInput,
  type GenerateResult,
  type ToolActivityOptions,
  type TranscriptMessage,
} from '../src/protocol/index.js';
import {
  type ActivityDependencies,
  requireAgent,
  runToolSet,
  toToolContext,
} from '../src/worker/runtime/dependencies.js';
import { startHeartbeating } from '../src/worker/runtime/heartbeat.js';
import { capToolCalls, overflowMessage } from './response-limits.js';
import { checkRoutedCall } from './routed-tool-calls.js';
import { offeredLookup, runRouting } from './run-routing.js';
import { callActivityOptions } from './tool-activity.js';

/**
 * One step's model call. Exactly one request, offering the worker's current tools for the run as schemas (no
 * execute); then every returned tool call is checked against its tool's schema and its dynamic `needsApproval` is
 * evaluated here, so the workflow receives calls already marked valid/invalid and approval-required, with the
 * tool's activity options.
 */
export function createGenerate(deps: ActivityDependencies) {
  return async function generate(input: GenerateInput): Promise<GenerateResult> {
    const ctx = Context.current();
    const agent = requireAgent(deps, input.agentName);
    // Heartbeat from the start: reading the transcript after a crash may wait for the run's query to be answered.
    const heartbeat = startHeartbeating();
    try {
      return await generateStep(deps, ctx, agent, input);
    } finally {
      heartbeat.stop();
    }
  };
}

async function generateStep(
  deps: ActivityDependencies,
  ctx: Context,
  agent: Agent,
  input: GenerateInput,
): Promise<GenerateResult> {
  const transcript = await deps.transcripts.read(input.run, input.messageCount, {
    ...(input.delta ? { delta: input.delta } : {}),
    ...(input.mark ? { mark: input.mark } : {}),
  });
  const tools = await runToolSet(deps, agent, input.run, transcript.run, input.mcp);
  // With routing (the agent's or the run's), the model is offered the routing's tools: searchTools, callTool and
  // the exposed ones, or everything directly when the run turns routing off.
  const routing = runRouting(deps, agent, tools, transcript.run);
  const offered: ToolLookup = routing ? offeredLookup(routing.visible) : tools;
  const specs: ToolSpec[] = routing
    ? routing.visible.map(toolModelSpec)
    : tools.getAllToolNames().flatMap((name) => tools.getToolSpec(name) ?? []);
  const [first, ...rest] = transcript.messages;
  const system = first?.role === 'system' && typeof first.content === 'string' ? first.content : undefined;
  const response = await callModel({
    model: resolveModel(deps, agent),
    ...(system !== undefined ? { system } : {}),
    messages: system !== undefined ? rest : transcript.messages,
    tools: specs,
    abortSignal: ctx.cancellationSignal,
  });

  const cap = deps.limits.toolCallsPerStep;
  const calls = capToolCalls(response.toolCalls, cap);
  const runCtx = toToolContext(transcript.run);
  const messages = [...transcript.messages, ...response.responseMessages];
  const toolCalls: CheckedToolCall[] = [];
  const check = (lookup: ToolLookup, call: RawToolCall) => checkCall(lookup, agent, call, { ...runCtx, messages });
  for (const call of calls.runnable) {
    toolCalls.push(routing?.enabled ? await checkRoutedCall(routing, call, check) : await check(offered, call));
  }
  const error = overflowMessage(response.toolCalls.length, cap);
  for (const call of calls.overflow) toolCalls.push({ ...callId(call), status: 'invalid', error });

  const result: GenerateResult = {
    version: 1,
    responseId: randomUUID(),
    messages: response.responseMessages,
    toolCalls,
    finishReason: response.finishReason,
    usage: response.usage,
  };
  const stale = await deps.mcp.staleServers(agent, input.run, input.mcp);
  if (stale.length > 0) result.staleMcpServers = stale;
  checkResponseSize(result, deps.limits.modelResponseBytes);
  if (toolCalls.length === 0 || waitsForPerson(toolCalls)) {
    // The run ends with this answer, or now waits for a person, maybe for days: this worker keeps nothing of it
    // (whatever activity comes next reads the run).
    deps.transcripts.forget(input.run);
    deps.runTools.forget(agent, input.run);
  } else {
    deps.transcripts.append(input.run, input.messageCount, result.messages, result.responseId);
  }
  return result;
}

/** True when no call of the step runs before a person acts: each valid one needs approval or is client-side. */
function waitsForPerson(calls: CheckedToolCall[]): boolean {
  const valid = calls.filter((call) => call.status === 'valid');
  return valid.length > 0 && valid.every((call) => call.needsApproval || call.clientSide);
}

function callId(call: RawToolCall): { toolCallId: string; toolName: string } {
  return { toolCallId: call.toolCallId, toolName: call.toolName };
}

/**
 * A response too large to record would fail the activity's completion, and a retry would call (and bill) the model
 * again for the same result: fail the run once, saying why.
 */
function checkResponseSize(result: GenerateResult, maxBytes: number): void {
  const bytes = jsonBytes(result);
  if (bytes <= maxBytes) return;
  throw ApplicationFailure.create({
    type: ModelFailureType.ResponseTooLarge,
    nonRetryable: true,
    message:
      `The model's response is ${bytes} bytes, over the ${maxBytes}-byte limit for a recorded response ` +
      '(Temporal stores each activity result as one payload of at most 2 MB). Ask for shorter answers ' +
      '(maxOutputTokens), or raise limits.modelResponseBytes if your Temporal server allows larger payloads.',
  });
}

/** The agent's model; a model the worker cannot build (missing key, unknown provider) fails without retries. */
function resolveModel(deps: ActivityDependencies, agent: Agent): ResolvedLanguageModel {
  try {
    return deps.providers.resolveLanguageModel(agent.model);
  } catch (err) {
    throw classifyModelError(err);
  }
}

/** Checks one call against the run's tools: valid (with its approval need and activity options) or invalid. */
async function checkCall(
  tools: ToolLookup,
  agent: Agent,
  call: RawToolCall,
  ctx: ReturnType<typeof toToolContext> & { messages: TranscriptMessage[] },
): Promise<CheckedToolCall> {
  const check = await checkToolCall(tools, call.toolName, call.input);
  if (check.kind !== 'valid') {
    return { ...callId(call), status: 'invalid', error: check.message };
  }
  const needsApproval = await evaluateNeedsApproval(check.tool, check.args, {
    toolCallId: call.toolCallId,
    ...ctx,
  }).catch((err: unknown) => {
    // A policy that cannot decide must not let the call through, nor fail the step: a person decides.
    getGlobalLogger().warn(`needsApproval of tool '${call.toolName}' threw; asking for approval instead`, {
      error: err instanceof Error ? err.message : String(err),
    });
    return true;
  });
  return {
    ...callId(call),
    status: 'valid',
    needsApproval,
    clientSide: check.tool.isClientSide(),
    activity: toJsonValue(callActivityOptions(agent, check.tool)) as ToolActivityOptions,
  };
}
