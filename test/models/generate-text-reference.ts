import type { LanguageModelV4, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import type { CallModelOptions, ModelCallResult, RawToolCall } from '../../src/models/call-model.js';
import { toPlainJson, toRawToolCall } from '../../src/models/model-response.js';
import { buildToolSet } from '../../src/models/provider-call-options.js';
import { readModelStream, type ModelDeltaListener } from '../../src/models/stream-response.js';
import { uniqueToolCallIds } from '../../src/models/unique-tool-call-ids.js';
import type { ModelCallTelemetry } from '../../src/telemetry/model-call-telemetry.js';

// The reference the tests hold durable-agent's model call to: the AI SDK's own one-step `generateText`, as the
// runtime made the call before it made the provider call itself. Its result and the telemetry it reports are what
// `callModel` and `callModelObserved` must match. `callModelObserved` is built the same way (it is `generateText`
// again); this copy stays the tests' own, so a change there is measured against the SDK, not against itself.

/** One model call through `generateText` (one step, no retries), read into a {@link ModelCallResult}. */
export async function callViaGenerateText(
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
