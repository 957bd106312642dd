import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Agent } from '../src/agent/agent.js';
import { checkToolCall } from '../src/tool/check-tool-call.js';
import { evaluateNeedsApproval } from '../src/tool/approval.js';
import { getGlobalLogger } from '../src/logger.js';
import { callModel, classifyModelError, type ToolSpec } from '../src/models/call-model.js';
import type { CheckedToolCall, GenerateInput, GenerateResult, TranscriptMessage } from '../src/protocol/index.js';
import { type ActivityDependencies, requireAgent, toToolContext } from './dependencies.js';
import { startHeartbeating } from './heartbeat.js';

/**
 * One step's model call. Exactly one request with the visible tools as schemas (no execute); then every returned
 * tool call is checked against the tool's Zod schema and its dynamic `needsApproval` is evaluated here, so the
 * workflow receives calls already marked valid/invalid and approval-required.
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
  const visible = new Set(input.toolNames);
  const specs: ToolSpec[] = input.toolNames.flatMap((name) => tools.getToolSpec(name) ?? []);
  const [first, ...rest] = transcript.messages;
  const system = first?.role === 'system' && typeof first.content === 'string' ? first.content : undefined;
  const conversation: TranscriptMessage[] = system !== undefined ? rest : transcript.messages;

  let response;
  try {
    response = await callModel({
      model: deps.providers.resolveLanguageModel(agent.model),
      ...(system !== undefined ? { system } : {}),
      messages: conversation,
      tools: specs,
      abortSignal: ctx.cancellationSignal,
    });
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw err;
    throw classifyModelError(err);
  }

  // Only the tools the model was shown may be called; everything else is "unavailable" for the model.
  const lookup = {
    getToolByName: (name: string) => (visible.has(name) ? tools.getToolByName(name) : undefined),
    getAllToolNames: () => input.toolNames,
  };
  const runCtx = toToolContext(transcript.run);
  const toolCalls: CheckedToolCall[] = [];
  for (const call of response.toolCalls) {
    const check = await checkToolCall(lookup, call.toolName, call.input);
    if (check.kind !== 'valid') {
      toolCalls.push({ toolCallId: call.toolCallId, toolName: call.toolName, status: 'invalid', error: check.message });
      continue;
    }
    const needsApproval = await evaluateNeedsApproval(check.tool, check.args, {
      toolCallId: call.toolCallId,
      messages: [...transcript.messages, ...response.responseMessages],
      ...runCtx,
    }).catch((err: unknown) => {
      // A policy that cannot decide must not let the call through, nor fail the step: a person decides.
      getGlobalLogger().warn(`needsApproval of tool '${call.toolName}' threw; asking for approval instead`, {
        error: err instanceof Error ? err.message : String(err),
      });
      return true;
    });
    toolCalls.push({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      status: 'valid',
      needsApproval,
      clientSide: check.tool.isClientSide(),
    });
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
