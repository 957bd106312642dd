import { cosineSimilarity, embedMany, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { callModel, type ModelCallResult, type ToolSpec } from '../../src/models/call-model.js';
import { OfflineDemoModel, OfflineEmbeddingModel } from '../../src/models/offline-model.js';
import { addTool, emailTool, weatherTool } from '../models/tool-specs.js';

/** Appends a model reply and results for its tool calls, as the durable loop would. */
function continueWith(
  messages: ModelMessage[],
  reply: ModelCallResult,
  results: Record<string, unknown>,
): ModelMessage[] {
  return [
    ...messages,
    ...reply.responseMessages,
    {
      role: 'tool',
      content: reply.toolCalls.map((call) => ({
        type: 'tool-result' as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: 'json' as const, value: (results[call.toolName] ?? null) as never },
      })),
    },
  ];
}

describe('OfflineDemoModel', () => {
  const model = new OfflineDemoModel();
  const tools: ToolSpec[] = [emailTool, weatherTool, addTool];

  it('calls the matching tool with arguments from the message, then summarizes the result', async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: "What's the weather in Paris today?" }];
    const first = await callModel({ model, messages, tools });

    expect(first.finishReason).toBe('tool-calls');
    expect(first.toolCalls).toEqual([
      { toolCallId: 'offline-call-0', toolName: 'get_weather', input: { city: 'Paris' } },
    ]);

    const second = await callModel({
      model,
      messages: continueWith(messages, first, { get_weather: { city: 'Paris', tempC: 21, sky: 'sunny' } }),
      tools,
    });
    expect(second.toolCalls).toEqual([]);
    expect(second.finishReason).toBe('stop');
    expect(second.text).toContain('Offline demo model');
    expect(second.text).toContain('get_weather: {"city":"Paris","tempC":21,"sky":"sunny"}');
    expect(second.usage.totalTokens).toBeGreaterThan(0);
  });

  it('takes numbers from the message in order and fills defaults', async () => {
    const add = await callModel({ model, messages: [{ role: 'user', content: 'Please add 2 and 40' }], tools });
    expect(add.toolCalls[0]).toMatchObject({ toolName: 'add', input: { a: 2, b: 40 } });

    const email = await callModel({
      model,
      messages: [{ role: 'user', content: 'Send an email to Alice about "quarterly report"' }],
      tools,
    });
    expect(email.toolCalls[0]).toMatchObject({
      toolName: 'send_email',
      input: { to: 'Alice', subject: 'quarterly report', urgent: false },
    });
  });

  it('is deterministic: the same prompt gives the same reply and tool-call id', async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'weather in Lima' }];
    expect(await callModel({ model, messages, tools })).toEqual(await callModel({ model, messages, tools }));
  });

  it('says plainly that it is offline when no tool matches', async () => {
    const reply = await callModel({ model, messages: [{ role: 'user', content: 'Write me a poem' }], tools });
    expect(reply.toolCalls).toEqual([]);
    expect(reply.text).toMatch(/Offline demo model.*None of the available tools.*OPENAI_API_KEY/s);
  });

  it('reports a denied call instead of calling the tool again', async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'weather in Rome' }];
    const first = await callModel({ model, messages, tools });
    const denied: ModelMessage[] = [
      ...messages,
      ...first.responseMessages,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'offline-call-0',
            toolName: 'get_weather',
            output: { type: 'execution-denied', reason: 'not today' },
          },
        ],
      },
    ];
    const reply = await callModel({ model, messages: denied, tools });
    expect(reply.toolCalls).toEqual([]);
    expect(reply.text).toContain('get_weather: not run (denied: not today)');
  });

  it('with tool routing, searches first and then calls the best hit through callTool', async () => {
    const routingTools: ToolSpec[] = [
      {
        name: 'searchTools',
        description: 'Search the tool catalogue',
        inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      },
      {
        name: 'callTool',
        description: 'Call a tool found by searchTools',
        inputSchema: {
          type: 'object',
          properties: { name: { type: 'string' }, args: { type: 'object' } },
          required: ['name', 'args'],
        },
      },
    ];
    const messages: ModelMessage[] = [{ role: 'user', content: 'What is the forecast in Berlin?' }];
    const search = await callModel({ model, messages, tools: routingTools });
    expect(search.toolCalls[0]).toMatchObject({ toolName: 'searchTools', input: { query: messages[0]?.content } });

    const afterSearch = continueWith(messages, search, {
      searchTools: {
        query: 'forecast',
        tools: [{ name: 'get_weather', description: '', parametersSchema: weatherTool.inputSchema }],
      },
    });
    const call = await callModel({ model, messages: afterSearch, tools: routingTools });
    expect(call.toolCalls[0]).toMatchObject({
      toolName: 'callTool',
      input: { name: 'get_weather', args: { city: 'Berlin' } },
    });

    const done = await callModel({
      model,
      messages: continueWith(afterSearch, call, { callTool: { tempC: 12 } }),
      tools: routingTools,
    });
    expect(done.text).toContain('get_weather: {"tempC":12}');
    // The search is summarized by what it found, not its whole result (every schema again).
    expect(done.text).toContain('- searchTools: found get_weather\n');
    expect(done.text).not.toContain('parametersSchema');
  });

  it("honours toolChoice 'none' and a forced tool", async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'weather in Oslo' }];
    expect((await callModel({ model, messages, tools, toolChoice: 'none' })).toolCalls).toEqual([]);
    const forced = await callModel({ model, messages, tools, toolChoice: { type: 'tool', toolName: 'add' } });
    expect(forced.toolCalls[0]?.toolName).toBe('add');
  });
});

/** The parts of a model stream, each with when it arrived. */
async function readStream<T>(stream: ReadableStream<T>): Promise<Array<{ part: T; at: number }>> {
  const reader = stream.getReader();
  const started = performance.now();
  const parts: Array<{ part: T; at: number }> = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    parts.push({ part: next.value, at: performance.now() - started });
  }
  return parts;
}

describe('OfflineDemoModel streaming', () => {
  it('writes its answer in timed pieces with the stream option, the same answer as doGenerate', async () => {
    const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hello there' }] }];
    const paced = new OfflineDemoModel({ stream: { chunkChars: 8, chunkDelayMs: 20 } });
    const { stream } = await paced.doStream({ prompt });
    const deltas = (await readStream(stream)).flatMap(({ part, at }) =>
      part.type === 'text-delta' ? [{ text: part.delta, at }] : [],
    );
    const answer = await new OfflineDemoModel().doGenerate({ prompt });
    const text = answer.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    expect(deltas.map((d) => d.text).join('')).toBe(text);
    expect(deltas.length).toBe(Math.ceil(text.length / 8));
    expect(deltas.every((d) => d.text.length <= 8)).toBe(true);
    // Paced: the last piece comes at least (pieces - 1) × 20 ms after the first (timers may run late, never early).
    expect(deltas.at(-1)!.at - deltas[0]!.at).toBeGreaterThanOrEqual((deltas.length - 1) * 20 - 5);
    // Without the option, one piece and no timer.
    const { stream: whole } = await new OfflineDemoModel().doStream({ prompt });
    const pieces = (await readStream(whole)).flatMap(({ part }) => (part.type === 'text-delta' ? [part.delta] : []));
    expect(pieces).toEqual([text]);
  });
});

describe('OfflineEmbeddingModel', () => {
  const model = new OfflineEmbeddingModel();

  it('gives deterministic, normalized vectors whose similarity follows shared words', async () => {
    const { embeddings } = await embedMany({
      model,
      values: ['weather in Paris', 'Get the current weather forecast for a city', 'Send an email to a recipient'],
    });
    const [query, weather, email] = embeddings as [number[], number[], number[]];
    expect(query).toHaveLength(256);
    expect(Math.hypot(...query)).toBeCloseTo(1, 10);
    expect(cosineSimilarity(query, weather)).toBeGreaterThan(cosineSimilarity(query, email));

    const again = await embedMany({ model, values: ['weather in Paris'] });
    expect(again.embeddings[0]).toEqual(query);
  });

  it('honours a requested dimension count', async () => {
    const result = await model.doEmbed({ values: ['a b c'], dimensions: 32 });
    expect(result.embeddings[0]).toHaveLength(32);
  });
});
