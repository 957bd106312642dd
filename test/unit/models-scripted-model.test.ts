import { ApplicationFailure } from '@temporalio/common';
import { streamText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { callModel } from '../../src/models/call-model.js';
import { ScriptedModelExhaustedError } from '../../src/models/errors/scripted-model-exhausted-error.js';
import { ScriptedLanguageModel, type ScriptedModelScript } from '../../src/models/scripted-model.js';
import { weatherTool } from '../models/tool-specs.js';

const user = (content: string): ModelMessage[] => [{ role: 'user', content }];

describe('ScriptedLanguageModel', () => {
  it('answers step by step and records every request (prompt and tools)', async () => {
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'get_weather', input: { city: 'Paris' } }] },
      { text: 'It is sunny.' },
    ]);
    const first = await callModel({ model, system: 'Be brief.', messages: user('Weather?'), tools: [weatherTool] });
    const second = await callModel({
      model,
      messages: [
        ...user('Weather?'),
        ...first.responseMessages,
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_0_0',
              toolName: 'get_weather',
              output: { type: 'json', value: { sky: 'clear' } },
            },
          ],
        },
      ],
      tools: [weatherTool],
    });

    expect(first.toolCalls).toEqual([{ toolCallId: 'call_0_0', toolName: 'get_weather', input: { city: 'Paris' } }]);
    expect(second.text).toBe('It is sunny.');
    expect(model.callCount).toBe(2);
    expect(model.remainingSteps).toBe(0);
    const [request] = model.requests;
    expect(request?.toolNames).toEqual(['get_weather']);
    expect(request?.tools[0]).toMatchObject({
      type: 'function',
      name: 'get_weather',
      inputSchema: weatherTool.inputSchema,
    });
    expect(request?.prompt[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(request?.lastUserText).toBe('Weather?');
    expect(model.requests[1]?.prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('fails loudly when the script is exhausted', async () => {
    const model = new ScriptedLanguageModel({ modelId: 'two-steps', steps: [{ text: 'only one' }] });
    await callModel({ model, messages: user('first') });

    const direct = new ScriptedLanguageModel([]);
    await expect(
      direct.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }),
    ).rejects.toThrow(ScriptedModelExhaustedError);

    const error = await callModel({ model, messages: user('one too many') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: 'Model.ScriptExhausted', nonRetryable: true });
    expect((error as ApplicationFailure).message).toMatch(
      /'two-steps' is exhausted: model call #2 needs step #2 but the script has 1.*"one too many"/,
    );
    // The failure carries a redacted copy of the error (what history records: name, message, stack), not the error.
    expect((error as ApplicationFailure).cause).toMatchObject({ name: 'ScriptedModelExhaustedError' });
  });

  it('lets a step be a function of the request', async () => {
    const model = new ScriptedLanguageModel([(request) => ({ text: `echo: ${request.lastUserText}` })]);
    expect((await callModel({ model, messages: user('ping') })).text).toBe('echo: ping');
  });

  it('throws scripted errors: Error objects as they are, specs as HTTP errors the classifier understands', async () => {
    const boom = new Error('boom');
    const model = new ScriptedLanguageModel([
      { error: boom },
      { error: { message: 'rate limited', statusCode: 429, responseHeaders: { 'retry-after': '3' } } },
    ]);
    await expect(model.doGenerate({ prompt: [] })).rejects.toBe(boom);
    const limited = await callModel({ model, messages: user('hi') }).catch((e: unknown) => e);
    expect(limited).toMatchObject({ type: 'Model.RateLimited', nonRetryable: false, nextRetryDelay: 3000 });
  });

  it('returns raw, unparsable arguments when the script says so', async () => {
    const model = new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'get_weather', input: '{"city":' }] }]);
    const result = await callModel({ model, messages: user('hi'), tools: [weatherTool] });
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: '{"city":' });
    expect(result.toolCalls[0]?.inputParseError).toBeTruthy();
  });

  it('rebuilds from a JSON script, for workers in child processes', async () => {
    const script: ScriptedModelScript = {
      modelId: 'from-json',
      steps: [
        { toolCalls: [{ toolName: 'get_weather', input: { city: 'Oslo' }, toolCallId: 'fixed-id' }] },
        { error: { message: 'upstream down', statusCode: 503 } },
        { text: 'done' },
      ],
    };
    const model = ScriptedLanguageModel.fromJSON(JSON.stringify(script));
    expect(model.modelId).toBe('from-json');
    expect((await callModel({ model, messages: user('a'), tools: [weatherTool] })).toolCalls[0]?.toolCallId).toBe(
      'fixed-id',
    );
    await expect(callModel({ model, messages: user('b') })).rejects.toMatchObject({ type: 'Model.ServerError' });
    expect((await callModel({ model, messages: user('c') })).text).toBe('done');
    expect(() => ScriptedLanguageModel.fromJSON('{}')).toThrow(/"steps" array/);
  });

  it('with assistant-turns selection, a retried call gets the same step (stateless across retries)', async () => {
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'get_weather', input: { city: 'Rome' } }] }, { text: 'final' }],
    });
    const first = await callModel({ model, messages: user('w'), tools: [weatherTool] });
    const retried = await callModel({ model, messages: user('w'), tools: [weatherTool] });
    expect(retried).toEqual(first);
    const later: ModelMessage[] = [
      ...user('w'),
      ...first.responseMessages,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_0_0',
            toolName: 'get_weather',
            output: { type: 'text', value: '20C' },
          },
        ],
      },
    ];
    expect((await callModel({ model, messages: later, tools: [weatherTool] })).text).toBe('final');
  });

  it('waits for delayMs and stops waiting when the call is aborted', async () => {
    const model = new ScriptedLanguageModel([
      { delayMs: 20, text: 'late' },
      { delayMs: 60_000, text: 'never' },
    ]);
    expect((await callModel({ model, messages: user('a') })).text).toBe('late');

    const controller = new AbortController();
    const pending = callModel({ model, messages: user('b'), abortSignal: controller.signal });
    const reason = new Error('cancelled by test');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('streams the same reply for streamText users', async () => {
    const model = new ScriptedLanguageModel([{ text: 'streamed', toolCalls: [{ toolName: 't', input: { a: 1 } }] }]);
    const result = streamText({ model, prompt: 'hi' });
    expect(await result.text).toBe('streamed');
    expect((await result.toolCalls).map((call) => call.toolCallId)).toEqual(['call_0_0']);
  });

  it('counts calls but keeps no prompt with recordRequests: false, and still runs out of steps loudly', async () => {
    const model = new ScriptedLanguageModel({ steps: [{ text: 'one' }, { text: 'two' }], recordRequests: false });
    expect((await callModel({ model, messages: user('a') })).text).toBe('one');
    expect((await callModel({ model, messages: user('b') })).text).toBe('two');
    expect(model.callCount).toBe(2);
    expect(model.requests).toEqual([]);
    expect(model.remainingSteps).toBe(0);
    await expect(callModel({ model, messages: user('c') })).rejects.toMatchObject({
      type: 'Model.ScriptExhausted',
      message: expect.stringMatching(/model call #3 needs step #3/),
    });
  });
});
