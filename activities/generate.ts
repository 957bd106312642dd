import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Agent } from '../src/agent/agent.js';
import { getGlobalLogger } from '../src/logger.js';
import {
  callModel,
  classifyModelError,
  ModelFailureType,
  type ModelCallResult,
  type RawToolCall,
  type ToolSpec,
} from '../src/models/call-model.js';
import type { ResolvedLanguageModel } from '../src/models/provider-registry.js';
import {
  DEFAULT_DELTA_INTERVAL_MS,
  WATCHED_FRESH_MS,
  WATCHED_MEMO_KEY,
  jsonBytes,
  type CheckedToolCall,
  type GenerateInput,
  type GenerateResult,
  type ToolActivityOptions,
  type TranscriptMessage,
} from '../src/protocol/index.js';
import type { RunToolRouting } from '../src/routing/resolve-run-routing.js';
import { evaluateNeedsApproval } from '../src/tool/approval.js';
import { checkToolCall, type ToolLookup } from '../src/tool/check-tool-call.js';
import { toJsonValue } from '../src/tool/json-safe.js';
import { toolModelSpec } from '../src/tool/tool-spec.js';
import { DeltaPublisher } from '../src/runtime/delta-publisher.js';
import { liveRunPublisher } from '../src/live/live-run-publisher.js';
import { type ActivityDependencies, requireAgent, toToolContext } from '../src/runtime/dependencies.js';
import { startHeartbeating } from '../src/runtime/heartbeat.js';
import { capToolCalls, overflowMessage } from './response-limits.js';
import { checkRoutedCall } from './routed-tool-calls.js';
import { callRouting, readRunCall, type RunCall } from './run-call.js';
import { offeredLookup } from './run-routing.js';
import { callActivityOptions } from './tool-activity.js';

/**
 * One step's model call. Exactly one request, offering the worker's current tools for the run as schemas (no
 * execute); then every returned tool call is checked against its tool's schema and its dynamic `needsApproval` is
 * evaluated here, so the workflow receives calls already marked valid/invalid and approval-required, with the
 * tool's activity options.
 *
 * With `stream` in its input (a run on protocol 4 whose step streams) the call streams and its
 * pieces are published on the run stream's `deltas` topic as they are written, tagged with this attempt; the last
 * ones are published before the step returns. The result is the same assembled step either way.
 */
export function createGenerate(deps: ActivityDependencies) {
  return async function generate(input: GenerateInput): Promise<GenerateResult> {
    const ctx = Context.current();
    const agent = requireAgent(deps, input.agentName);
    // Heartbeat from the start: reading the transcript after a crash may wait for the run's query to be answered.
    const heartbeat = startHeartbeating();
    const deltas = deltaPublisher(deps, input, ctx);
    try {
      const call = await readRunCall(deps, agent, input);
      const offer = offeredTools(deps, agent, call);
      const response = await callModel({
        model: resolveModel(deps, agent),
        ...splitSystemPrompt(call.messages),
        tools: offer.specs,
        abortSignal: ctx.cancellationSignal,
        ...(deltas ? { onDelta: deltas.onDelta } : {}),
      });
      // The last pieces go out while the calls are checked; the step returns once they are published.
      const published = deltas?.close();
      const toolCalls = await checkResponseCalls(deps, agent, input, call, offer, response);
      const result = await stepResult(deps, agent, input, response, toolCalls);
      keepOrForget(deps, agent, input, result);
      await published;
      return result;
    } finally {
      deltas?.abandon();
      heartbeat.stop();
    }
  };
}

/** The attempt's publisher of model deltas, when the run's step streams (protocol 4). */
function deltaPublisher(deps: ActivityDependencies, input: GenerateInput, ctx: Context): DeltaPublisher | undefined {
  const stream = input.protocol === 4 ? input.stream : undefined;
  if (typeof stream?.token !== 'string') return undefined;
  const intervalMs = stream.intervalMs ?? DEFAULT_DELTA_INTERVAL_MS;
  const { attempt, workflowExecution } = ctx.info;
  const options = { token: stream.token, step: input.step, attempt, intervalMs };
  if (!workflowExecution) return new DeltaPublisher(options);
  // The run's live stream is on Redis: every piece goes there (watchers cost the run nothing), none to the run.
  const live = liveRunPublisher(deps, stream.live, workflowExecution.workflowId, attempt);
  if (live) return new DeltaPublisher({ ...options, publisher: live });
  // Whether someone watches, from the run's memo as Temporal has it (a describe call: no worker answers it).
  const run = ctx.client.workflow.getHandle(workflowExecution.workflowId, workflowExecution.runId);
  const watched = async () => isWatched((await run.describe()).memo?.[WATCHED_MEMO_KEY]);
  return new DeltaPublisher({ ...options, whenWatched: { watched, watchedAtStart: stream.watched === true } });
}

/** True when the run's watched memo names a time recent enough: someone polled its stream lately. */
function isWatched(at: unknown): boolean {
  return typeof at === 'string' && Math.abs(Date.now() - Date.parse(at)) < WATCHED_FRESH_MS;
}

/** What the model is offered this step: its tool specs, and the tools its calls are checked against. */
interface OfferedTools {
  specs: ToolSpec[];
  lookup: ToolLookup;
  routing: RunToolRouting | undefined;
}

/**
 * With routing (the agent's or the run's), the model is offered the routing's tools: searchTools, callTool and
 * the exposed ones, or everything directly when the run turns routing off. Without: every tool of the run.
 */
function offeredTools(deps: ActivityDependencies, agent: Agent, call: RunCall): OfferedTools {
  const { tools } = call;
  const routing = callRouting(deps, agent, call);
  if (!routing) {
    const specs = tools.getAllToolNames().flatMap((name) => tools.getToolSpec(name) ?? []);
    return { specs, lookup: tools, routing };
  }
  return { specs: routing.visible.map(toolModelSpec), lookup: offeredLookup(routing.visible), routing };
}

/** The transcript as the model call takes it: the system prompt (the run's first message, if any) apart. */
function splitSystemPrompt(messages: TranscriptMessage[]): { system?: string; messages: TranscriptMessage[] } {
  const [first, ...rest] = messages;
  if (first?.role === 'system' && typeof first.content === 'string') return { system: first.content, messages: rest };
  return { messages };
}

/**
 * Checks the response's tool calls, up to the per-step cap (the calls past it get an error result instead of
 * running). A routed run's `searchTools` and `callTool` calls are checked by their routing rules; `callTool`'s
 * checked target is recorded in the call's route, which the workflow hands to the target's `executeTool`.
 */
async function checkResponseCalls(
  deps: ActivityDependencies,
  agent: Agent,
  input: GenerateInput,
  call: RunCall,
  offer: OfferedTools,
  response: ModelCallResult,
): Promise<CheckedToolCall[]> {
  const cap = deps.limits.toolCallsPerStep;
  const calls = capToolCalls(response.toolCalls, cap);
  const ctx = { ...toToolContext(call.run), messages: [...call.messages, ...response.responseMessages] };
  const check = (lookup: ToolLookup, raw: RawToolCall) => checkCall(lookup, agent, raw, ctx);
  const routing = offer.routing?.enabled ? offer.routing : undefined;
  const routed = { argsFromCall: input.protocol === 4 || input.argsFromCall === true };
  const toolCalls: CheckedToolCall[] = [];
  for (const raw of calls.runnable) {
    toolCalls.push(routing ? await checkRoutedCall(routing, raw, check, routed) : await check(offer.lookup, raw));
  }
  const error = overflowMessage(response.toolCalls.length, cap);
  for (const raw of calls.overflow) toolCalls.push({ ...callId(raw), status: 'invalid', error });
  return toolCalls;
}

/** The step's result as the run records it, with the MCP servers to re-list, size-checked. */
async function stepResult(
  deps: ActivityDependencies,
  agent: Agent,
  input: GenerateInput,
  response: ModelCallResult,
  toolCalls: CheckedToolCall[],
): Promise<GenerateResult> {
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
  return result;
}

/**
 * The worker's caches after the step: the response is appended to the run's cached transcript, so the next
 * activity needs no query; unless the run ends with this answer, or now waits for a person, maybe for days: then
 * this worker keeps nothing of it (whatever activity comes next reads the run).
 */
function keepOrForget(deps: ActivityDependencies, agent: Agent, input: GenerateInput, result: GenerateResult): void {
  if (result.toolCalls.length === 0 || waitsForPerson(result.toolCalls)) {
    deps.transcripts.forget(input.run);
    deps.runTools.forget(agent, input.run);
  } else {
    deps.transcripts.append(input.run, input.messageCount, result.messages, result.responseId);
  }
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
