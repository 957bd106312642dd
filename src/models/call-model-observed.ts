import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { getErrorMessage } from '@ai-sdk/provider';
import { createIdGenerator } from '@ai-sdk/provider-utils';
import type { ModelMessage, ToolSet } from 'ai';
import {
  DefaultStepResult,
  asLanguageModelUsage,
  calculateTokensPerSecond,
  convertLanguageModelContent,
  createTelemetryDispatcher,
  toResponseMessages,
} from 'ai/internal';
import type { CallModelOptions, ModelCallResult } from './call-model.js';
import { readProviderResponse, type ProviderResponse } from './model-response.js';
import { providerCallOptions } from './provider-call-options.js';
import { readModelStream } from './stream-response.js';
import type { ModelCallTelemetry } from '../telemetry/model-call-telemetry.js';

// The ids `generateText` gives a call and a response without one.
const generateCallId = createIdGenerator({ prefix: 'call', size: 24 });
const generateResponseId = createIdGenerator({ prefix: 'aitxt', size: 24 });

type Dispatcher = ReturnType<typeof createTelemetryDispatcher>;
type Execute<T> = Omit<Parameters<NonNullable<Dispatcher['runInTracingChannelSpan']>>[0], 'execute'> & {
  execute: () => Promise<T>;
};

/** What a provider answered, with the request and response metadata `generateText` reports. */
type ObservedResponse = ProviderResponse & Pick<LanguageModelV4GenerateResult, 'request' | 'response'>;

/**
 * The model call when someone observes the AI SDK's telemetry (a configured tracer, an integration registered with
 * the SDK, or a subscriber on its `ai:telemetry` tracing channel): the same one provider call as {@link callModel}
 * (`doGenerate`, or `doStream` with `onDelta`), reported to them the way the SDK's one-step `generateText` reports
 * it: the lifecycle events (`onStart`, `onStepStart`, `onLanguageModelCallStart`, `onLanguageModelCallEnd`,
 * `onStepEnd`, `onEnd`, or `onStepError` and `onError`), the integrations' context around the provider call (so the
 * OpenTelemetry integration's spans nest under the activity's span), and the tracing-channel spans of the call, its
 * step and its model call. The result is the same {@link ModelCallResult} the unobserved call returns.
 */
export async function callModelObserved(
  model: LanguageModelV4,
  options: CallModelOptions,
  telemetry: ModelCallTelemetry | undefined,
): Promise<ModelCallResult> {
  const dispatcher = createTelemetryDispatcher({ telemetry });
  const inChannelSpan = async <T>(span: Execute<T>): Promise<T> =>
    dispatcher.runInTracingChannelSpan ? ((await dispatcher.runInTracingChannelSpan(span)) as T) : await span.execute();
  const call = await providerCallOptions(model, options);
  const { callOptions } = call;
  const callId = generateCallId();
  const instructions = options.system;
  const messages: ModelMessage[] = options.messages;
  const settings = {
    maxOutputTokens: callOptions.maxOutputTokens,
    temperature: callOptions.temperature,
    topP: callOptions.topP,
    topK: callOptions.topK,
    presencePenalty: callOptions.presencePenalty,
    frequencyPenalty: callOptions.frequencyPenalty,
    stopSequences: callOptions.stopSequences,
    seed: callOptions.seed,
    reasoning: callOptions.reasoning,
  };
  const startEvent = {
    callId,
    operationId: 'ai.generateText',
    provider: model.provider,
    modelId: model.modelId,
    instructions,
    messages,
    tools: call.tools,
    toolChoice: options.toolChoice,
    activeTools: undefined,
    toolOrder: undefined,
    ...settings,
    maxRetries: 0,
    timeout: undefined,
    headers: callOptions.headers,
    providerOptions: options.providerOptions,
    output: undefined,
    runtimeContext: {},
    toolsContext: {},
  };

  return await inChannelSpan({
    type: 'generateText',
    event: startEvent as never,
    execute: async () => {
      await dispatcher.onStart?.(startEvent as never);
      let openStep: Record<string, unknown> | undefined;
      try {
        const { step, result } = await inChannelSpan({
          type: 'step',
          event: { callId, stepNumber: 0 } as never,
          execute: async () => {
            const stepStartEvent = {
              callId,
              provider: model.provider,
              modelId: model.modelId,
              stepNumber: 0,
              instructions,
              messages,
              tools: call.tools,
              toolChoice: options.toolChoice,
              activeTools: undefined,
              toolOrder: undefined,
              steps: [],
              providerOptions: options.providerOptions,
              output: undefined,
              runtimeContext: {},
              promptMessages: callOptions.prompt,
              stepTools: callOptions.tools,
              stepToolChoice: callOptions.toolChoice,
              toolsContext: {},
            };
            await dispatcher.onStepStart?.(stepStartEvent as never);
            openStep = stepStartEvent;
            const modelCallStartEvent = {
              callId,
              provider: model.provider,
              modelId: model.modelId,
              instructions,
              messages,
              tools: callOptions.tools,
              ...settings,
            };
            const startedAt = performance.now();
            await dispatcher.onLanguageModelCallStart?.(modelCallStartEvent as never);
            const execute = async (): Promise<ObservedResponse> => await providerCall(model, callOptions, options);
            const response: ObservedResponse = dispatcher.executeLanguageModelCall
              ? await dispatcher.executeLanguageModelCall<ObservedResponse>({
                  ...modelCallStartEvent,
                  execute,
                } as never)
              : await execute();
            const responseTimeMs = performance.now() - startedAt;
            const usage = asLanguageModelUsage(response.usage);
            const responseMeta = {
              id: response.response?.id ?? generateResponseId(),
              timestamp: response.response?.timestamp ?? new Date(),
              modelId: response.response?.modelId ?? model.modelId,
              headers: response.response?.headers,
            };
            const performanceOf = (toolExecutionMs?: Record<string, number>) => ({
              responseTimeMs,
              effectiveOutputTokensPerSecond: calculateTokensPerSecond({
                tokens: usage.outputTokens,
                durationMs: responseTimeMs,
              }),
              outputTokensPerSecond: undefined,
              inputTokensPerSecond: undefined,
              effectiveTotalTokensPerSecond: calculateTokensPerSecond({
                tokens: (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
                durationMs: responseTimeMs,
              }),
              ...(toolExecutionMs !== undefined ? { stepTimeMs: performance.now() - startedAt, toolExecutionMs } : {}),
              timeToFirstOutputMs: undefined,
            });
            let stepContent: Awaited<ReturnType<typeof convertLanguageModelContent>> = [];
            const read = await readProviderResponse(model, call, response, async ({ content, toolCalls }) => {
              const convert = async (toolOutputs: unknown[]) =>
                await convertLanguageModelContent({
                  content,
                  toolCalls: toolCalls as never,
                  toolOutputs: toolOutputs as never,
                  toolApprovalRequests: [],
                  toolApprovalResponses: [],
                  tools: call.tools,
                  abortSignal: options.abortSignal,
                });
              await dispatcher.onLanguageModelCallEnd?.({
                callId,
                provider: model.provider,
                modelId: responseMeta.modelId,
                finishReason: response.finishReason.unified,
                usage,
                content: await convert([]),
                responseId: responseMeta.id,
                ...(requestUrl(response) != null ? { request: { url: requestOrigin(requestUrl(response)) } } : {}),
                ...(response.providerMetadata != null ? { providerMetadata: response.providerMetadata } : {}),
                performance: performanceOf(),
              } as never);
              // The step's content also holds the error `generateText` records for each invalid call (the runtime
              // writes its own results; the SDK's telemetry sees what it always saw).
              stepContent = await convert(
                toolCalls
                  .filter((toolCall) => toolCall.invalid && toolCall.dynamic && !toolCall.providerExecuted)
                  .map((toolCall) => ({
                    type: 'tool-error',
                    toolCallId: toolCall.toolCallId,
                    toolName: toolCall.toolName,
                    input: toolCall.input,
                    error: getErrorMessage(toolCall.invalid ? toolCall.error : undefined),
                    dynamic: true,
                  })),
              );
            });
            const step = new DefaultStepResult({
              callId,
              stepNumber: 0,
              provider: model.provider,
              modelId: model.modelId,
              runtimeContext: {},
              toolsContext: {},
              content: stepContent,
              finishReason: response.finishReason.unified,
              rawFinishReason: response.finishReason.raw,
              usage,
              performance: performanceOf({}),
              warnings: response.warnings,
              providerMetadata: response.providerMetadata,
              request: { ...response.request, body: undefined, messages: undefined },
              response: {
                ...responseMeta,
                messages: await toResponseMessages({ content: stepContent, tools: call.tools }),
                body: undefined,
              },
              steeringMessages: [],
            } as never);
            openStep = undefined;
            await dispatcher.onStepEnd?.(step as never);
            return { step, result: read.result };
          },
        });
        await dispatcher.onEnd?.(endEvent(callId, step) as never);
        return result;
      } catch (error) {
        if (openStep) await dispatcher.onStepError?.({ ...openStep, error } as never);
        await dispatcher.onError?.({ callId, error } as never);
        throw error;
      }
    },
  });
}

/** The provider call itself: `doGenerate`, or `doStream` read to its end with the deltas reported. */
async function providerCall(
  model: LanguageModelV4,
  callOptions: LanguageModelV4CallOptions,
  options: CallModelOptions,
): Promise<ObservedResponse> {
  if (!options.onDelta) {
    const result = await model.doGenerate(callOptions);
    return { ...result, request: withoutUrlDetails(result.request) };
  }
  const { stream, request, response } = await model.doStream({ ...callOptions, includeRawChunks: false });
  return { ...(await readModelStream(stream, options.onDelta)), request: withoutUrlDetails(request), response };
}

/** As `generateText` keeps it: the request's URL reduced to its origin (a query can carry a key), or dropped. */
function withoutUrlDetails<T extends { url?: unknown } | undefined>(request: T): T {
  if (request == null || !('url' in request)) return request;
  const { url, ...rest } = request;
  const origin = requestOrigin(url);
  return { ...rest, ...(origin !== undefined ? { url: origin } : {}) } as T;
}

function requestUrl(response: ObservedResponse): unknown {
  return (response.request as { url?: unknown } | undefined)?.url;
}

/** `generateText`'s `onEnd` event for a call of one step. */
function endEvent(callId: string, step: DefaultStepResult<ToolSet>) {
  return {
    callId,
    stepNumber: step.stepNumber,
    model: step.model,
    runtimeContext: step.runtimeContext,
    finishReason: step.finishReason,
    rawFinishReason: step.rawFinishReason,
    usage: step.usage,
    totalUsage: step.usage,
    content: step.content,
    text: step.text,
    reasoning: step.reasoning,
    reasoningText: step.reasoningText,
    files: step.files,
    sources: step.sources,
    toolCalls: step.toolCalls,
    staticToolCalls: step.staticToolCalls,
    dynamicToolCalls: step.dynamicToolCalls,
    toolResults: step.toolResults,
    staticToolResults: step.staticToolResults,
    dynamicToolResults: step.dynamicToolResults,
    responseMessages: step.response.messages,
    warnings: step.warnings ?? [],
    request: step.request,
    response: step.response,
    providerMetadata: step.providerMetadata,
    steps: [step],
    finalStep: step,
    toolsContext: step.toolsContext,
  };
}

/** The scheme, host and port of an HTTP(S) request URL (what the SDK reports as the server), or nothing. */
function requestOrigin(url: unknown): string | undefined {
  if (typeof url !== 'string' && !(url instanceof URL)) return undefined;
  try {
    const endpoint = new URL(url);
    return endpoint.protocol === 'http:' || endpoint.protocol === 'https:' ? endpoint.origin : undefined;
  } catch {
    return undefined;
  }
}
