import type { LanguageModelV4, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { createOpenAI } from '@ai-sdk/openai';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callModel, type CallModelOptions, type ModelDelta, type ToolSpec } from '../../src/models/call-model.js';
import { callModelObserved } from '../../src/models/call-model-observed.js';
import { callViaGenerateText } from '../models/generate-text-reference.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../../src/models/scripted-model.js';
import { TELEMETRY_OFF, telemetryWhenUnobserved } from '../../src/models/unobserved-telemetry.js';
import { startOpenAIFakeServer, type OpenAIFakeServer } from '../models/openai-fake-server.js';
import { weatherTool } from '../models/tool-specs.js';

const user = (content: string): ModelMessage[] => [{ role: 'user', content }];
const webSearch: ToolSpec = {
  kind: 'provider',
  name: 'web_search',
  providerTool: { type: 'provider', id: 'openai.web_search', args: {} },
};

// Replies that exercise every branch of reading a response: the direct provider call must return what the SDK's
// `generateText` returned for them, field for field (that result shape is what replay fixtures hold).
const replies: Record<string, ScriptedReply> = {
  text: { text: 'Hello there', usage: { inputTokens: 7, outputTokens: 2 } },
  'empty text': { text: '' },
  'tool calls': { text: 'Checking.', toolCalls: [{ toolName: 'get_weather', input: { city: 'Oslo' } }] },
  'invalid JSON arguments': { toolCalls: [{ toolName: 'get_weather', input: '{"city": "Par', toolCallId: 'c1' }] },
  'unknown tool, valid JSON': { toolCalls: [{ toolName: 'launch_rockets', input: { count: 3 }, toolCallId: 'c1' }] },
  'unknown tool, invalid JSON': { toolCalls: [{ toolName: 'launch_rockets', input: '{oops', toolCallId: 'c1' }] },
  'prototype names': {
    toolCalls: [
      { toolName: 'constructor', input: {}, toolCallId: 'c1' },
      { toolName: '__proto__', input: {}, toolCallId: 'c2' },
    ],
  },
  'repeated and empty ids': {
    toolCalls: [
      { toolName: 'get_weather', input: { city: 'A' }, toolCallId: 'same' },
      { toolName: 'get_weather', input: { city: 'B' }, toolCallId: 'same' },
      { toolName: 'get_weather', input: { city: 'C' }, toolCallId: '' },
    ],
  },
  'provider-executed call and result': {
    text: 'Found it.',
    content: [
      { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: '{"q":"x"}', providerExecuted: true },
      { type: 'tool-result', toolCallId: 'ws', toolName: 'web_search', result: { hits: 3 } },
      { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: '{"q":"y"}', providerExecuted: true },
      { type: 'tool-result', toolCallId: 'ws', toolName: 'web_search', result: { hits: 1 }, isError: true },
    ],
  },
  'reasoning with metadata': {
    content: [
      { type: 'reasoning', text: 'thinking…', providerMetadata: { test: { signature: 's1' } } },
      { type: 'text', text: 'answer', providerMetadata: { test: { id: 't1' } } },
      { type: 'source', sourceType: 'url', id: 'src1', url: 'https://example.com/' },
    ],
  },
  'length finish': { text: 'cut', finishReason: 'length' },
};

describe('callModel: one provider call (generate or stream) returns what generateText returned', () => {
  it('takes the direct path here: nothing observes the SDK telemetry in this process', () => {
    expect(telemetryWhenUnobserved()).toBe(TELEMETRY_OFF);
  });

  for (const [name, reply] of Object.entries(replies)) {
    it(name, async () => {
      const options = (model: LanguageModelV4): CallModelOptions => ({
        model,
        system: 'Be brief.',
        messages: user('Go'),
        tools: [weatherTool, webSearch],
      });
      const direct = await callModel(options(new ScriptedLanguageModel([reply])));
      const viaSdk = await callViaGenerateText(
        new ScriptedLanguageModel([reply]),
        options(new ScriptedLanguageModel([reply])),
        TELEMETRY_OFF,
      );
      expect(direct).toEqual(viaSdk);
      // The traced path (telemetry observed, here reported to no one) makes the same call.
      const traced = await callModelObserved(
        new ScriptedLanguageModel([reply]),
        options(new ScriptedLanguageModel([reply])),
        TELEMETRY_OFF,
      );
      expect(traced).toEqual(viaSdk);

      // Streamed (directly, and on the traced path): the same result, and the text deltas join to its text.
      const deltas: ModelDelta[] = [];
      const onDelta = (delta: ModelDelta) => deltas.push(delta);
      const streamed = await callModel({ ...options(new ScriptedLanguageModel([reply])), onDelta });
      expect(streamed).toEqual(direct);
      const text = deltas.filter((d) => d.type === 'text').map((d) => d.delta);
      expect(text.join('')).toBe(direct.text);
      const observedStream = await callModelObserved(
        new ScriptedLanguageModel([reply]),
        { ...options(new ScriptedLanguageModel([reply])), onDelta },
        TELEMETRY_OFF,
      );
      expect(observedStream).toEqual(direct);
    });
  }

  it('a forced tool choice the model ignored fails as generateText fails, classified', async () => {
    const options = {
      messages: user('Go'),
      tools: [weatherTool],
      toolChoice: 'required' as const,
    };
    const error = await callModel({ ...options, model: new ScriptedLanguageModel([{ text: 'no' }]) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).type).toBe('Model.InvalidResponse');
  });

  it('reports the provider warnings through the SDK warning logger', async () => {
    const logged: unknown[] = [];
    const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
    const previous = global.AI_SDK_LOG_WARNINGS;
    global.AI_SDK_LOG_WARNINGS = (options: { warnings: unknown[] }) => logged.push(...options.warnings);
    try {
      const scripted = new ScriptedLanguageModel([{ text: 'hi' }]);
      const model: LanguageModelV4 = {
        specificationVersion: 'v4',
        provider: 'warn',
        modelId: 'warn-1',
        supportedUrls: {},
        doGenerate: async (options): Promise<LanguageModelV4GenerateResult> => ({
          ...(await scripted.doGenerate(options)),
          warnings: [{ type: 'unsupported', feature: 'temperature' }],
        }),
        doStream: (options) => scripted.doStream(options),
      };
      await callModel({ model, messages: user('Hi'), temperature: 0.3 });
    } finally {
      global.AI_SDK_LOG_WARNINGS = previous;
    }
    expect(logged).toEqual([{ type: 'unsupported', feature: 'temperature' }]);
  });
});

describe('callModel: the provider request over HTTP', () => {
  let server: OpenAIFakeServer;
  const model = () => createOpenAI({ apiKey: 'sk-test-key', baseURL: server.baseURL }).chat('gpt-4o-mini');

  beforeAll(async () => {
    server = await startOpenAIFakeServer();
  });
  afterEach(() => {
    server.requests.length = 0;
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends the call headers, the SDK user agent, provider options and settings', async () => {
    server.enqueue({ text: 'ok' });
    await callModel({
      model: model(),
      messages: user('Hi'),
      tools: [weatherTool],
      toolChoice: 'required',
      headers: { 'x-tenant': 'acme' },
      providerOptions: { openai: { user: 'user-42', parallelToolCalls: false } },
      maxOutputTokens: 99,
      temperature: 0.25,
    }).catch(() => undefined); // the text-only answer violates 'required'; the request is what is checked here

    const [request] = server.chatRequests;
    expect(request?.headers['x-tenant']).toBe('acme');
    expect(request?.headers['user-agent']).toMatch(/\bai\/\d/);
    expect(request?.body).toMatchObject({
      user: 'user-42',
      parallel_tool_calls: false,
      max_tokens: 99,
      temperature: 0.25,
      tool_choice: 'required',
      tools: [expect.objectContaining({ type: 'function' })],
    });
  });
});
