import { createOpenAI } from '@ai-sdk/openai';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { streamText, type ModelMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callModel, type ModelCallResult } from '../../src/models/call-model.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { startOpenAIFakeServer, type OpenAIFakeServer } from '../models/openai-fake-server.js';
import { weatherTool } from '../models/tool-specs.js';

const user = (content: string): ModelMessage[] => [{ role: 'user', content }];

describe('callModel over HTTP to an OpenAI-compatible server', () => {
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

  async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApplicationFailure);
    return error as ApplicationFailure;
  }

  it('returns text, usage and the assistant message as plain JSON', async () => {
    server.enqueue({ text: 'Hello there', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const result = await callModel({ model: model(), system: 'Be brief.', messages: user('Hi'), tools: [] });

    expect(result).toMatchObject({
      text: 'Hello there',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
      responseMessages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello there' }] }],
    });
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    const [request] = server.chatRequests;
    expect(request?.headers.authorization).toBe('Bearer sk-test-key');
    expect(request?.body).toMatchObject({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
  });

  it('sends tools as JSON Schemas and returns the tool calls with parsed input', async () => {
    server.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_0_0' }] });
    const result = await callModel({ model: model(), messages: user('Weather in Paris?'), tools: [weatherTool] });

    expect(server.chatRequests[0]?.body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: weatherTool.description, parameters: weatherTool.inputSchema },
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls).toEqual([{ toolCallId: 'call_0_0', toolName: 'get_weather', input: { city: 'Paris' } }]);
    expect(result.responseMessages).toEqual([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_0_0', toolName: 'get_weather', input: { city: 'Paris' } }],
      },
    ]);
  });

  it('returns calls to unknown tools and unparsable arguments raw, neither thrown nor repaired', async () => {
    server.enqueue({
      toolCalls: [
        { name: 'launch_rockets', arguments: { count: 3 }, id: 'c1' },
        { name: 'constructor', arguments: {}, id: 'c2' },
        { name: 'get_weather', arguments: '{"city": "Par', id: 'c3' },
      ],
    });
    const result = await callModel({ model: model(), messages: user('Go'), tools: [weatherTool] });

    expect(result.toolCalls).toEqual([
      { toolCallId: 'c1', toolName: 'launch_rockets', input: { count: 3 } },
      { toolCallId: 'c2', toolName: 'constructor', input: {} },
      {
        toolCallId: 'c3',
        toolName: 'get_weather',
        input: '{"city": "Par',
        inputParseError: expect.stringMatching(/JSON|string/i) as unknown as string,
      },
    ]);
    // Only the assistant message: results (including errors for bad calls) are the runtime's to write.
    expect(result.responseMessages.map((m) => m.role)).toEqual(['assistant']);
  });

  it('makes exactly one HTTP request per call: a 500 is not retried by the SDK', async () => {
    server.enqueue({ status: 500, message: 'upstream exploded' });
    const failure = await failureOf(callModel({ model: model(), messages: user('Hi') }));

    expect(server.chatRequests).toHaveLength(1);
    expect(failure.type).toBe('Model.ServerError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain('upstream exploded');
  });

  it('classifies a 429 as retryable Model.RateLimited with the retry-after delay', async () => {
    server.enqueue({ status: 429, message: 'slow down', headers: { 'retry-after': '7' } });
    const failure = await failureOf(callModel({ model: model(), messages: user('Hi') }));

    expect(server.chatRequests).toHaveLength(1);
    expect(failure.type).toBe('Model.RateLimited');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(7000);
  });

  it('prefers retry-after-ms when the server sends it', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after-ms': '1250', 'retry-after': '9' } });
    const failure = await failureOf(callModel({ model: model(), messages: user('Hi') }));
    expect(failure.nextRetryDelay).toBe(1250);
  });

  it('classifies a 400 as non-retryable Model.BadRequest', async () => {
    server.enqueue({ status: 400, message: "Invalid 'messages[1].content'" });
    const failure = await failureOf(callModel({ model: model(), messages: user('Hi') }));

    expect(failure.type).toBe('Model.BadRequest');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details?.[0]).toMatchObject({ statusCode: 400 });
  });

  it('classifies 401 as Model.AuthenticationFailed and 404 as Model.NotFound, both non-retryable', async () => {
    server.enqueue({ status: 401, message: 'Incorrect API key' }, { status: 404, message: 'model not found' });
    const auth = await failureOf(callModel({ model: model(), messages: user('Hi') }));
    const missing = await failureOf(callModel({ model: model(), messages: user('Hi') }));

    expect([auth.type, auth.nonRetryable]).toEqual(['Model.AuthenticationFailed', true]);
    expect([missing.type, missing.nonRetryable]).toEqual(['Model.NotFound', true]);
  });

  it('classifies a refused connection as retryable Model.Network', async () => {
    const gone = await startOpenAIFakeServer();
    const baseURL = gone.baseURL;
    await gone.close();
    const failure = await failureOf(
      callModel({ model: createOpenAI({ apiKey: 'k', baseURL }).chat('m'), messages: user('Hi') }),
    );
    expect([failure.type, failure.nonRetryable]).toEqual(['Model.Network', false]);
  });

  it('aborting the signal closes the HTTP request and rethrows the abort reason unchanged', async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = callModel({ model: model(), messages: user('Hi'), abortSignal: controller.signal });
    await server.waitForRequests(1);

    // What Temporal puts in an activity's cancellation signal: it must come back as is, not as a model failure.
    const reason = new CancelledFailure('Activity cancelled');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const [request] = server.chatRequests;
    await request?.closed;
    expect(request?.closedByClient).toBe(true);
  });

  it('the fake server also streams (for streamText users)', async () => {
    server.enqueue({ text: 'streamed', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const result = streamText({ model: model(), prompt: 'Hi', maxRetries: 0 });
    expect(await result.text).toBe('streamed');
    expect((await result.toolCalls).map((c) => [c.toolName, c.input])).toEqual([['get_weather', { city: 'Oslo' }]]);
    expect(server.chatRequests[0]?.body.stream).toBe(true);
  });
});

describe('callModel with in-process models', () => {
  it('refuses a model string instead of letting the SDK route it to a default provider', async () => {
    await expect(callModel({ model: 'openai/gpt-4o' as never, messages: user('Hi') })).rejects.toThrow(
      /ProviderRegistry/,
    );
  });

  it('keeps provider-executed tool calls inside the assistant message, out of toolCalls', async () => {
    const model = new ScriptedLanguageModel([
      {
        text: 'Found it.',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'ws_1',
            toolName: 'web_search',
            input: '{"query":"durable agents"}',
            providerExecuted: true,
          },
          { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', result: { hits: 3 } },
        ],
      },
    ]);
    const webSearch = { type: 'provider' as const, id: 'openai.web_search', args: {} };
    const result: ModelCallResult = await callModel({
      model,
      messages: user('Search'),
      tools: [weatherTool, { kind: 'provider', name: 'web_search', providerTool: webSearch }],
    });

    expect(model.requests[0]?.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'get_weather' }),
      expect.objectContaining({ type: 'provider', id: 'openai.web_search', name: 'web_search' }),
    ]);
    expect(result.toolCalls).toEqual([]);
    const content = result.responseMessages[0]?.content;
    expect(Array.isArray(content) && content.map((part) => part.type)).toEqual(['text', 'tool-call', 'tool-result']);
  });

  it('passes toolChoice through to the model', async () => {
    const model = new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'get_weather', input: { city: 'Rome' } }] }]);
    await callModel({
      model,
      messages: user('Hi'),
      tools: [weatherTool],
      toolChoice: { type: 'tool', toolName: 'get_weather' },
    });
    expect(model.requests[0]?.toolChoice).toEqual({ type: 'tool', toolName: 'get_weather' });
  });
});
