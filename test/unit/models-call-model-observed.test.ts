// The traced model call (telemetry observed) is the same one provider call as the untraced one, and reports it the
// way the AI SDK's own one-step `generateText` does: the same lifecycle events to an integration, the same
// OpenTelemetry spans and attributes, the same tracing-channel spans. `generateText` itself is the reference
// (test/models/generate-text-reference.ts).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { OpenTelemetry } from '@ai-sdk/otel';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AI_SDK_TELEMETRY_TRACING_CHANNEL, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { callModelObserved } from '../../src/models/call-model-observed.js';
import type { CallModelOptions, ModelDelta, ToolSpec } from '../../src/models/call-model.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../../src/models/scripted-model.js';
import type { ModelCallTelemetry } from '../../src/telemetry/model-call-telemetry.js';
import { callViaGenerateText } from '../models/generate-text-reference.js';
import { weatherTool } from '../models/tool-specs.js';

const user = (content: string): ModelMessage[] => [{ role: 'user', content }];
const webSearch: ToolSpec = {
  kind: 'provider',
  name: 'web_search',
  providerTool: { type: 'provider', id: 'openai.web_search', args: {} },
};
const replies: Record<string, ScriptedReply> = {
  text: { text: 'Hello there', usage: { inputTokens: 7, outputTokens: 2 } },
  'tool calls': {
    text: 'Checking.',
    toolCalls: [{ toolName: 'get_weather', input: { city: 'Oslo' }, toolCallId: 'c1' }],
    usage: { inputTokens: 11, outputTokens: 4 },
  },
  'invalid JSON arguments': { toolCalls: [{ toolName: 'get_weather', input: '{"city": "Par', toolCallId: 'c1' }] },
  'provider-executed call and result': {
    text: 'Found it.',
    content: [
      { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: '{"q":"x"}', providerExecuted: true },
      { type: 'tool-result', toolCallId: 'ws', toolName: 'web_search', result: { hits: 3 } },
    ],
  },
  'reasoning with metadata': {
    content: [
      { type: 'reasoning', text: 'thinking…', providerMetadata: { test: { signature: 's1' } } },
      { type: 'text', text: 'answer', providerMetadata: { test: { id: 't1' } } },
    ],
  },
};

const options = (model: LanguageModelV4, extra: Partial<CallModelOptions> = {}): CallModelOptions => ({
  model,
  system: 'Be brief.',
  messages: user('Go'),
  tools: [weatherTool, webSearch],
  maxOutputTokens: 50,
  temperature: 0.5,
  ...extra,
});

type Call = typeof callModelObserved;
const paths: Array<[string, Call]> = [
  ['generateText', callViaGenerateText],
  ['traced callModel', callModelObserved],
];

/** An integration that records every event it gets, with the fields that vary per call blanked. */
function recorder() {
  const events: Array<[string, unknown]> = [];
  const record = (name: string) => (event: unknown) => void events.push([name, normalize(event)]);
  const integration = {
    onStart: record('onStart'),
    onStepStart: record('onStepStart'),
    onLanguageModelCallStart: record('onLanguageModelCallStart'),
    onLanguageModelCallEnd: record('onLanguageModelCallEnd'),
    onStepEnd: record('onStepEnd'),
    onStepError: record('onStepError'),
    onEnd: record('onEnd'),
    onError: record('onError'),
    executeLanguageModelCall: async <T>({ execute, ...event }: { execute: () => PromiseLike<T> }): Promise<T> => {
      events.push(['executeLanguageModelCall', normalize(event)]);
      return await execute();
    },
  };
  return { events, integration };
}

const VOLATILE = new Set(['callId', 'id', 'responseId', 'timestamp', 'performance', 'aiVersion']);

/** The event as plain data (getters read), with ids, times and durations blanked. */
function normalize(value: unknown, depth = 0): unknown {
  if (depth > 12 || value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return '<date>';
  if (value instanceof Error) return { error: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((item) => normalize(item, depth + 1));
  const out: Record<string, unknown> = {};
  const keys = new Set<string>(Object.keys(value));
  // DefaultStepResult's getters (text, toolCalls, ...) live on its prototype.
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto && proto !== Object.prototype) {
    for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(proto))) if (d.get) keys.add(key);
  }
  for (const key of [...keys].sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined || typeof field === 'function') continue;
    out[key] = VOLATILE.has(key) ? '<varies>' : normalize(field, depth + 1);
  }
  return out;
}

describe('the traced model call reports what generateText reported, making one provider call', () => {
  for (const [name, reply] of Object.entries(replies)) {
    for (const streamed of [false, true]) {
      it(`${name}${streamed ? ', streamed' : ''}: same events and result`, async () => {
        const seen: Record<string, { events: Array<[string, unknown]>; result: unknown; calls: number }> = {};
        for (const [label, call] of paths) {
          const { events, integration } = recorder();
          const telemetry: ModelCallTelemetry = { isEnabled: true, functionId: 'fn', integrations: integration };
          const model = new ScriptedLanguageModel([reply]);
          const deltas: ModelDelta[] = [];
          const result = await call(
            model,
            options(model, streamed ? { onDelta: (delta) => deltas.push(delta) } : {}),
            telemetry,
          );
          if (streamed) expect(deltas.length).toBeGreaterThan(0);
          seen[label] = { events, result, calls: model.callCount };
        }
        const [reference, ours] = [seen.generateText!, seen['traced callModel']!];
        expect(ours.calls).toBe(1);
        expect(ours.result).toEqual(reference.result);
        expect(ours.events.map(([event]) => event)).toEqual(reference.events.map(([event]) => event));
        expect(ours.events).toEqual(reference.events);
      });
    }
  }

  it('a failing provider call: the same error events, and the error thrown', async () => {
    const seen: Record<string, { events: string[]; error: unknown }> = {};
    for (const [label, call] of paths) {
      const { events, integration } = recorder();
      const model = new ScriptedLanguageModel([{ error: new Error('provider down') }]);
      const error = await call(model, options(model), {
        isEnabled: true,
        functionId: 'fn',
        integrations: integration,
      }).catch((e: unknown) => e);
      seen[label] = { events: events.map(([event]) => event), error };
    }
    expect(seen['traced callModel']!.events).toEqual(seen.generateText!.events);
    expect(seen['traced callModel']!.events).toContain('onError');
    expect((seen['traced callModel']!.error as Error).message).toBe('provider down');
  });

  it("the OpenTelemetry integration's spans: the same names, nesting and attributes", async () => {
    const spans: Record<string, unknown[]> = {};
    for (const [label, call] of paths) {
      const exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const integration = new OpenTelemetry({ tracer: provider.getTracer('test'), agentSpanName: 'functionId' });
      const model = new ScriptedLanguageModel([replies['tool calls']!]);
      await call(model, options(model), {
        isEnabled: true,
        functionId: 'durable-agent.generate',
        recordInputs: false,
        recordOutputs: false,
        integrations: integration,
      });
      const finished = exporter.getFinishedSpans();
      const nameOf = new Map(finished.map((span) => [span.spanContext().spanId, span.name]));
      spans[label] = finished
        .map((span) => ({
          name: span.name,
          parent: span.parentSpanId ? (nameOf.get(span.parentSpanId) ?? 'outside') : undefined,
          status: span.status.code,
          attributes: Object.fromEntries(
            Object.entries(span.attributes)
              .filter(([key]) => !/response\.id|duration|per_second|time_to|\.ms$|msToFirst/.test(key))
              .sort(([a], [b]) => a.localeCompare(b)),
          ),
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    }
    expect(spans['traced callModel']).toEqual(spans.generateText);
    const chat = (spans['traced callModel'] as Array<{ name: string; attributes: Record<string, unknown> }>).find(
      (span) => span.name.startsWith('chat '),
    );
    expect(chat?.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 11, 'gen_ai.usage.output_tokens': 4 });
    // Nested as generateText nests them: the call's span, its step, the model call inside the step.
    expect(
      (spans['traced callModel'] as Array<{ name: string; parent?: string }>).map((span) => [span.name, span.parent]),
    ).toEqual([
      ['chat scripted', 'step 1'],
      ['invoke_agent durable-agent.generate', undefined],
      ['step 1', 'invoke_agent durable-agent.generate'],
    ]);
  });

  it("the 'ai:telemetry' tracing channel: the same spans, in the same order", async () => {
    const seen: Record<string, string[]> = {};
    for (const [label, call] of paths) {
      const types: string[] = [];
      const onStart = (message: unknown) => void types.push(`start ${(message as { type: string }).type}`);
      const onEnd = (message: unknown) => void types.push(`end ${(message as { type: string }).type}`);
      subscribe(`tracing:${AI_SDK_TELEMETRY_TRACING_CHANNEL}:start`, onStart);
      subscribe(`tracing:${AI_SDK_TELEMETRY_TRACING_CHANNEL}:end`, onEnd);
      try {
        const model = new ScriptedLanguageModel([replies.text!]);
        await call(model, options(model), undefined);
      } finally {
        unsubscribe(`tracing:${AI_SDK_TELEMETRY_TRACING_CHANNEL}:start`, onStart);
        unsubscribe(`tracing:${AI_SDK_TELEMETRY_TRACING_CHANNEL}:end`, onEnd);
      }
      seen[label] = types;
    }
    expect(seen['traced callModel']).toEqual(seen.generateText);
    expect(seen['traced callModel']).toEqual(expect.arrayContaining(['start generateText', 'start languageModelCall']));
  });
});
