import type { LanguageModelV4, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import type { CallModelOptions, ModelCallResult, RawToolCall } from './call-model.js';
import { toPlainJson, toRawToolCall } from './model-response.js';
import { buildToolSet } from './provider-call-options.js';
import { readModelStream, type ModelDeltaListener } from './stream-response.js';
import { uniqueToolCallIds } from './unique-tool-call-ids.js';
import type { ModelCallTelemetry } from '../telemetry/model-call-telemetry.js';

/**
 * The model call when someone observes the AI SDK's telemetry (a configured tracer, an integration registered with
 * the SDK, or a subscriber on its `ai:telemetry` tracing channel): the AI SDK's own one-step `generateText`, so
 * they get exactly what the SDK reports (lifecycle events, the integrations' context around the provider call,
 * tracing-channel spans) through its public API, with nothing rebuilt from `ai/internal`. One step, no SDK
 * retries (Temporal owns retries), one provider call: `doGenerate`, or `doStream` with `onDelta`. The result is the
 * same {@link ModelCallResult} the unobserved call returns (test/unit/models-call-model-parts.test.ts).
 *
 * Costs more CPU than the direct provider call {@link callModel} makes when no one is watching; only observed calls
 * pay it (docs/performance.md, `bench/model-call.ts`).
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

  // Provider-executed calls stay inside the assistant message; the runtime runs (or refuses) the rest.
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
