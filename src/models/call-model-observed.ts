import type { LanguageModelV4, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import type { CallModelOptions, ModelCallResult, RawToolCall } from './call-model.js';
import { toPlainJson, toRawToolCall } from './model-response.js';
import { buildToolSet } from './provider-call-options.js';
import { readModelStream, type ModelDeltaListener } from './stream-response.js';
import { uniqueToolCallIds } from './unique-tool-call-ids.js';
import type { ModelCallTelemetry } from '../telemetry/model-call-telemetry.js';

/**
 * The model call through the AI SDK's `generateText` (one step), used only when someone observes its telemetry:
 * a configured tracer (spans with model id, usage and finish reason under the activity's span) or a listener on
 * the SDK's telemetry channel or registry. The SDK then reports the call exactly as its users expect; the result is
 * the same {@link ModelCallResult} the direct provider call returns.
 */
export async function callModelObserved(
  model: LanguageModelV4,
  options: CallModelOptions,
  telemetry: ModelCallTelemetry | undefined,
): Promise<ModelCallResult> {
  const result = await generateText({
    model: wrapLanguageModel({
      model,
      middleware: options.onDelta ? [uniqueToolCallIds, streamedAsGenerate(options.onDelta)] : uniqueToolCallIds,
    }),
    instructions: options.system,
    messages: options.messages,
    allowSystemInMessages: true,
    tools: buildToolSet(options.tools ?? []),
    toolChoice: options.toolChoice,
    stopWhen: stepCountIs(1),
    maxRetries: 0,
    abortSignal: options.abortSignal,
    providerOptions: options.providerOptions,
    headers: options.headers,
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
    telemetry,
  });

  const toolCalls: RawToolCall[] = result.toolCalls
    .filter((call) => !call.providerExecuted)
    .map((call) => toRawToolCall(call.toolCallId, call.toolName, call.input, call.invalid ? call.error : undefined));

  return toPlainJson({
    text: result.text,
    toolCalls,
    finishReason: result.finishReason,
    usage: {
      inputTokens: result.usage.inputTokens ?? 0,
      outputTokens: result.usage.outputTokens ?? 0,
      totalTokens: result.usage.totalTokens ?? (result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0),
    },
    // The SDK adds a tool message with an error for each invalid call; the runtime writes its own results.
    responseMessages: result.response.messages.filter((message) => message.role !== 'tool'),
    ...(result.providerMetadata ? { providerMetadata: result.providerMetadata } : {}),
  });
}

/**
 * Serves `generateText`'s `doGenerate` from the provider's stream, reporting deltas on the way, so a streamed call
 * keeps the SDK's spans and events too.
 */
function streamedAsGenerate(onDelta: ModelDeltaListener): LanguageModelV4Middleware {
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doStream }) => {
      const { stream, request, response } = await doStream();
      return { ...(await readModelStream(stream, onDelta)), request, response };
    },
  };
}
