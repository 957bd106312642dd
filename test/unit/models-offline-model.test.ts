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

/** A conversation turn the model answers: its reply appended, tool results included, as a conversation records it. */
async function answerTurn(
  model: OfflineDemoModel,
  transcript: ModelMessage[],
  message: string,
  tools: ToolSpec[],
  results: Record<string, unknown>,
): Promise<{ transcript: ModelMessage[]; calls: ModelCallResult['toolCalls']; text: string }> {
  let messages: ModelMessage[] = [...transcript, { role: 'user', content: message }];
  const calls: ModelCallResult['toolCalls'] = [];
  for (let step = 0; step < 5; step++) {
    const reply = await callModel({ model, messages, tools });
    if (reply.toolCalls.length === 0) {
      return { transcript: [...messages, ...reply.responseMessages], calls, text: reply.text };
    }
    calls.push(...reply.toolCalls);
    messages = continueWith(messages, reply, results);
  }
  throw new Error('the offline model kept calling tools');
}

describe('OfflineDemoModel in a conversation (earlier turns in the prompt)', () => {
  const model = new OfflineDemoModel();
  // As the example assistant's send_email: a body besides the subject.
  const mailTool: ToolSpec = {
    name: 'send_email',
    description: 'Send an email to a recipient. Requires approval.',
    inputSchema: {
      type: 'object',
      properties: { to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
      required: ['to', 'subject', 'body'],
    },
  };
  const tools: ToolSpec[] = [weatherTool, mailTool, addTool];
  const weather = { city: 'Paris', tempC: 14, conditions: 'light rain' };
  const mailed = { sent: true, to: 'ana@example.com', subject: 'x', messageId: 'm-1' };

  it('mails the earlier forecast when a follow-up says "that forecast", and recalls its city when asked', async () => {
    const first = await answerTurn(model, [], "What's the weather in Paris?", tools, { get_weather: weather });
    expect(first.calls).toEqual([{ toolCallId: 'offline-call-0', toolName: 'get_weather', input: { city: 'Paris' } }]);

    const second = await answerTurn(model, first.transcript, 'Email that forecast to ana@example.com', tools, {
      send_email: mailed,
    });
    expect(second.calls).toEqual([
      {
        // Ids follow the position in the whole transcript: no clash with the first turn's call.
        toolCallId: 'offline-call-2',
        toolName: 'send_email',
        input: {
          to: 'ana@example.com',
          subject: "Re: What's the weather in Paris?",
          body: 'get_weather: {"city":"Paris","tempC":14,"conditions":"light rain"}',
        },
      },
    ]);
    expect(second.text).toContain('- send_email: {"sent":true');

    const third = await answerTurn(model, second.transcript, 'Which city was that forecast for?', tools, {});
    // Answered from the transcript: no tool call (get_weather shares "city" with the question, and is not called).
    expect(third.calls).toEqual([]);
    expect(third.text).toBe(
      'Offline demo model (rule-based, no API key). From earlier in this conversation: the city was Paris ' +
        `(get_weather, when you asked "What's the weather in Paris?").`,
    );
    // Deterministic: the same transcript gives the same answer.
    expect((await answerTurn(model, second.transcript, 'Which city was that forecast for?', tools, {})).text).toBe(
      third.text,
    );
  });

  it('follows its ordinary rules when the message does not refer back, or refers to nothing recorded', async () => {
    const first = await answerTurn(model, [], "What's the weather in Paris?", tools, { get_weather: weather });
    // A new request, no "that"/"it": a new call, with arguments from this message only.
    const rome = await answerTurn(model, first.transcript, 'And the weather in Rome?', tools, {
      get_weather: { ...weather, city: 'Rome' },
    });
    expect(rome.calls.map((call) => call.input)).toEqual([{ city: 'Rome' }]);
    const mail = await answerTurn(model, first.transcript, 'Email "hello" to bo@example.com', tools, {
      send_email: mailed,
    });
    expect(mail.calls[0]?.input).toEqual({ to: 'bo@example.com', subject: 'hello', body: 'hello' });
    // A question that refers back but names no recorded value: the tools, as for any question.
    const vague = await answerTurn(model, first.transcript, 'What is the weather like after that?', tools, {
      get_weather: weather,
    });
    expect(vague.calls.map((call) => call.toolName)).toEqual(['get_weather']);
    // Without earlier turns, "that" recalls nothing.
    const alone = await callModel({ model, messages: [{ role: 'user', content: 'Which city was that for?' }], tools });
    expect(alone.text).not.toContain('From earlier in this conversation');
  });

  it('takes nothing from a denied earlier call, and bounds what it repeats of a hostile earlier turn', async () => {
    const denied = await answerTurn(model, [], "What's the weather in Paris?", tools, {});
    const deniedTranscript = denied.transcript.map((message) =>
      message.role === 'tool'
        ? {
            ...message,
            content: message.content.map((part) =>
              part.type === 'tool-result' ? { ...part, output: { type: 'execution-denied' as const } } : part,
            ),
          }
        : message,
    );
    const afterDenial = await answerTurn(model, deniedTranscript, 'Email that to ana@example.com', tools, {
      send_email: mailed,
    });
    expect(afterDenial.calls[0]?.input).not.toMatchObject({ subject: expect.stringMatching(/^Re: /) });

    const huge = 'Q'.repeat(100_000);
    const hostile = await answerTurn(model, [], `weather in Paris ${huge}?`, tools, {
      get_weather: { city: huge, tempC: 1, conditions: huge },
    });
    const mail = await answerTurn(model, hostile.transcript, 'Email that forecast to ana@example.com', tools, {
      send_email: mailed,
    });
    const input = mail.calls[0]?.input as { subject: string; body: string };
    expect(input.subject.length).toBeLessThanOrEqual(210);
    expect(input.body.length).toBeLessThanOrEqual(420);
    const recalled = await answerTurn(model, mail.transcript, 'Which city was that forecast for?', tools, {});
    expect(recalled.text).toContain('From earlier in this conversation: the city was QQQ');
    expect(recalled.text.length).toBeLessThan(600);
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
