import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createOpenAI } from '@ai-sdk/openai';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ModelMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callModel, type ModelDelta } from '../../src/models/call-model.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../../src/models/scripted-model.js';
import { startOpenAIFakeServer, type FakeChatReply, type OpenAIFakeServer } from '../models/openai-fake-server.js';
import { weatherTool } from '../models/tool-specs.js';

const user = (content: string): ModelMessage[] => [{ role: 'user', content }];
const joined = (deltas: ModelDelta[], type: ModelDelta['type']) =>
  deltas
    .filter((d) => d.type === type)
    .map((d) => d.delta)
    .join('');

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('callModel streaming over HTTP (SSE from the OpenAI-compatible fake)', () => {
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

  const answer: FakeChatReply = {
    text: 'The weather in Oslo is mild today.',
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, id: 'call_w' }],
    usage: { prompt_tokens: 20, completion_tokens: 9 },
  };

  it('reports deltas as they arrive and returns exactly the non-streamed result', async () => {
    server.enqueue(answer);
    const plain = await callModel({ model: model(), messages: user('Weather?'), tools: [weatherTool] });

    server.enqueue({ ...answer, stream: { chunkChars: 5, chunkDelayMs: 25 } });
    const deltas: Array<ModelDelta & { at: number }> = [];
    const started = performance.now();
    const streamed = await callModel({
      model: model(),
      messages: user('Weather?'),
      tools: [weatherTool],
      onDelta: (delta) => deltas.push({ ...delta, at: performance.now() - started }),
    });
    const finished = performance.now() - started;

    expect(server.chatRequests[1]?.body.stream).toBe(true);
    expect(streamed).toEqual(plain);
    expect(joined(deltas, 'text')).toBe(streamed.text);
    expect(deltas.filter((d) => d.type === 'text').length).toBeGreaterThan(1);
    const toolInput = deltas.filter((d) => d.type === 'tool-input');
    expect(new Set(toolInput.map((d) => [d.id, d.type === 'tool-input' && d.toolName].join()))).toEqual(
      new Set(['call_w,get_weather']),
    );
    expect(JSON.parse(joined(deltas, 'tool-input'))).toEqual({ city: 'Oslo' });
    // The first delta came while the answer was still being written, not with the result.
    expect(finished - deltas[0]!.at).toBeGreaterThan(100);
  });

  it('a stream cut midway throws a retryable classified failure after the deltas it delivered', async () => {
    server.enqueue({ text: 'abcdefghijklmnop', stream: { chunkChars: 4, cutAfterChunks: 2 } });
    const deltas: ModelDelta[] = [];
    const failure = await failureOf(
      callModel({ model: model(), messages: user('Hi'), onDelta: (d) => deltas.push(d) }),
    );

    expect(joined(deltas, 'text')).toBe('abcdefgh');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toMatch(/^Model\./);
  });

  it('aborting mid-stream closes the HTTP request and rethrows the abort reason unchanged', async () => {
    server.enqueue({ text: 'abcdefghijklmnop', stream: { chunkChars: 4, hangAfterChunks: 2 } });
    const controller = new AbortController();
    const reason = new CancelledFailure('Activity cancelled');
    const deltas: ModelDelta[] = [];
    const pending = callModel({
      model: model(),
      messages: user('Hi'),
      abortSignal: controller.signal,
      onDelta: (delta) => {
        deltas.push(delta);
        if (deltas.length === 2) controller.abort(reason);
      },
    });

    await expect(pending).rejects.toBe(reason);
    expect(joined(deltas, 'text')).toBe('abcdefgh');
    const [request] = server.chatRequests;
    await request?.closed;
    expect(request?.closedByClient).toBe(true);
  });
});

describe('callModel streaming with the scripted model', () => {
  it('timed chunks: text and reasoning deltas by part id, the same result as without streaming', async () => {
    const reply: ScriptedReply = {
      content: [
        { type: 'reasoning', text: 'Let me think about it.', providerMetadata: { test: { signature: 'r' } } },
        { type: 'text', text: 'Here is the answer you wanted.' },
      ],
      toolCalls: [{ toolName: 'get_weather', input: { city: 'Rome' }, toolCallId: 'c1' }],
      stream: { chunkChars: 6, chunkDelayMs: 5 },
    };
    const plain = await callModel({
      model: new ScriptedLanguageModel([reply]),
      messages: user('Go'),
      tools: [weatherTool],
    });
    const deltas: ModelDelta[] = [];
    const streamed = await callModel({
      model: new ScriptedLanguageModel([reply]),
      messages: user('Go'),
      tools: [weatherTool],
      onDelta: (d) => deltas.push(d),
    });

    expect(streamed).toEqual(plain);
    expect(joined(deltas, 'reasoning')).toBe('Let me think about it.');
    expect(joined(deltas, 'text')).toBe(streamed.text);
    expect(new Set(deltas.map((d) => `${d.type}:${d.id}`)).size).toBe(3);
    expect(JSON.parse(joined(deltas, 'tool-input'))).toEqual({ city: 'Rome' });
  });

  it('tool-input deltas carry the ids the result gives the calls, repeated and empty provider ids included', async () => {
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'get_weather', input: { city: 'A' }, toolCallId: 'same' },
          { toolName: 'get_weather', input: { city: 'B' }, toolCallId: 'same' },
          { toolName: 'get_weather', input: { city: 'C' }, toolCallId: '' },
        ],
      },
    ]);
    const deltas: ModelDelta[] = [];
    const result = await callModel({
      model,
      messages: user('Go'),
      tools: [weatherTool],
      onDelta: (d) => deltas.push(d),
    });

    const byId = new Map<string, string>();
    for (const d of deltas) byId.set(d.id, (byId.get(d.id) ?? '') + d.delta);
    expect(result.toolCalls.map((call) => [call.toolCallId, call.input])).toEqual(
      [...byId].map(([id, input]) => [id, JSON.parse(input) as unknown]),
    );
    expect([...byId.keys()]).toEqual(['same', 'same~2', 'call']);
  });

  it('a scripted stream cut midway fails retryable after its deltas', async () => {
    const model = new ScriptedLanguageModel([
      { text: 'one two three four', stream: { chunkChars: 4, failAfterChunks: 2 } },
    ]);
    const deltas: ModelDelta[] = [];
    const failure = await failureOf(callModel({ model, messages: user('Go'), onDelta: (d) => deltas.push(d) }));
    expect(joined(deltas, 'text')).toBe('one two ');
    expect(failure.nonRetryable).toBe(false);
  });

  it('an error part in the stream is thrown, classified, after the deltas before it', async () => {
    const model = new ScriptedLanguageModel([
      {
        content: [
          { type: 'text', text: 'partial' },
          // What a provider sends for an SSE error event: the call must fail, not return the partial text.
          { type: 'error', error: new Error('overloaded') } as never,
        ],
      },
    ]);
    const deltas: ModelDelta[] = [];
    const failure = await failureOf(callModel({ model, messages: user('Go'), onDelta: (d) => deltas.push(d) }));
    expect(joined(deltas, 'text')).toBe('partial');
    expect([failure.nonRetryable, failure.message]).toEqual([false, 'overloaded']);
  });

  it('a stream that closes without its finish part fails retryable instead of returning a partial answer', async () => {
    const scripted = new ScriptedLanguageModel([{ text: 'never finished' }]);
    const model: LanguageModelV4 = {
      specificationVersion: 'v4',
      provider: 'cut',
      modelId: 'cut-1',
      supportedUrls: {},
      doGenerate: (options) => scripted.doGenerate(options),
      doStream: async (options) => {
        const { stream } = await scripted.doStream(options);
        // Everything but the finish part, then a clean close: what a proxy that drops the tail looks like.
        const cut = stream.pipeThrough(
          new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
            transform: (part, controller) => (part.type === 'finish' ? undefined : controller.enqueue(part)),
          }),
        );
        return { stream: cut };
      },
    };
    const deltas: ModelDelta[] = [];
    const failure = await failureOf(callModel({ model, messages: user('Go'), onDelta: (d) => deltas.push(d) }));
    expect(joined(deltas, 'text')).toBe('never finished');
    expect([failure.type, failure.nonRetryable]).toEqual(['Model.InvalidResponse', false]);
  });

  it('a listener that throws ends the call with its error and cancels the stream', async () => {
    let cancelled = false;
    const model: LanguageModelV4 = {
      specificationVersion: 'v4',
      provider: 'endless',
      modelId: 'endless-1',
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error('not used')),
      doStream: () =>
        Promise.resolve({
          // A hostile stream that never ends: the listener's error must still stop the read.
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start: (controller) => controller.enqueue({ type: 'text-start', id: 't' }),
            pull: (controller) => controller.enqueue({ type: 'text-delta', id: 't', delta: 'x' }),
            cancel: () => {
              cancelled = true;
            },
          }),
        }),
    };
    let seen = 0;
    const failure = await failureOf(
      callModel({
        model,
        messages: user('Go'),
        onDelta: () => {
          if (++seen === 3) throw new Error('listener broke');
        },
      }),
    );
    expect(failure.message).toBe('listener broke');
    expect(cancelled).toBe(true);
  });

  it('aborting between timed chunks rethrows the abort reason', async () => {
    const controller = new AbortController();
    const reason = new CancelledFailure('Activity cancelled');
    const model = new ScriptedLanguageModel([{ text: 'a'.repeat(40), stream: { chunkChars: 4, chunkDelayMs: 20 } }]);
    const deltas: ModelDelta[] = [];
    const pending = callModel({
      model,
      messages: user('Go'),
      abortSignal: controller.signal,
      onDelta: (d) => {
        deltas.push(d);
        if (deltas.length === 3) controller.abort(reason);
      },
    });
    await expect(pending).rejects.toBe(reason);
    expect(deltas).toHaveLength(3);
  });
});
