import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Agent } from '../src/agent/agent.js';
import { checkToolCall } from '../src/tool/check-tool-call.js';
import { evaluateNeedsApproval } from '../src/tool/approval.js';
import { toJsonValue } from '../src/tool/json-safe.js';
import type { ToolManager } from '../src/tool/tool-manager.js';
import { getGlobalLogger } from '../src/logger.js';
import { callModel, classifyModelError, type RawToolCall, type ToolSpec } from '../src/models/call-model.js';
import type { ResolvedLanguageModel } from '../src/models/provider-registry.js';
import {
  mergeToolActivity,
  type CheckedToolCall,
  type GenerateInput,
  type GenerateResult,
  type ToolActivityOptions,
  type TranscriptMessage,
} from '../src/protocol/index.js';
import { type ActivityDependencies, requireAgent, toToolContext } from './dependencies.js';
import { startHeartbeating } from './heartbeat.js';

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
  const tools = await deps.runTools.get(agent, input.run, transcript.run);
  const specs: ToolSpec[] = tools.getAllToolNames().flatMap((name) => tools.getToolSpec(name) ?? []);
  const [first, ...rest] = transcript.messages;
  const system = first?.role === 'system' && typeof first.content === 'string' ? first.content : undefined;
  const response = await callModel({
    model: resolveModel(deps, agent),
    ...(system !== undefined ? { system } : {}),
    messages: system !== undefined ? rest : transcript.messages,
    tools: specs,
    abortSignal: ctx.cancellationSignal,
  });

  const runCtx = toToolContext(transcript.run);
  const messages = [...transcript.messages, ...response.responseMessages];
  const toolCalls: CheckedToolCall[] = [];
  for (const call of response.toolCalls) {
    toolCalls.push(await checkCall(tools, agent, call, { ...runCtx, messages }));
  }

  const responseId = randomUUID();
  deps.transcripts.append(input.run, input.messageCount, response.responseMessages, responseId);
  return {
    version: 1,
    responseId,
    messages: response.responseMessages,
    toolCalls,
    finishReason: response.finishReason,
    usage: response.usage,
  };
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
  tools: ToolManager,
  agent: Agent,
  call: RawToolCall,
  ctx: ReturnType<typeof toToolContext> & { messages: TranscriptMessage[] },
): Promise<CheckedToolCall> {
  const check = await checkToolCall(tools, call.toolName, call.input);
  if (check.kind !== 'valid') {
    return { toolCallId: call.toolCallId, toolName: call.toolName, status: 'invalid', error: check.message };
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
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    status: 'valid',
    needsApproval,
    clientSide: check.tool.isClientSide(),
    activity: toJsonValue(mergeToolActivity(agent.activity?.tools, check.tool.activity)) as ToolActivityOptions,
  };
}
