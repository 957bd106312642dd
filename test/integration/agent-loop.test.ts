// The durable agent loop against a real Temporal dev server: multi-step runs with parallel tools, bad tool calls
// that the model must read, client-side tools, the step budget, ToolDeniedError, and a recorded agent definition.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { ToolDeniedError } from '../../src/tool/errors/tool-denied-error.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';
import { activityCounts, recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

describe('agent loop', () => {
  it('runs a multi-step run whose tool calls of one step execute in parallel, results in call order', async () => {
    const started: string[] = [];
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    // Each tool waits until both have started: run one after the other, they would time out.
    const rendezvous = async (name: string) => {
      started.push(name);
      if (started.length === 2) release();
      await Promise.race([
        bothStarted,
        new Promise((_, reject) => setTimeout(() => reject(new Error(`${name} ran alone: not parallel`)), 5_000)),
      ]);
    };
    const slow = createTool({
      name: 'slow_lookup',
      description: 'Looks something up slowly.',
      parameters: z.object({ key: z.string() }),
      execute: async ({ key }) => {
        await rendezvous('slow');
        await new Promise((r) => setTimeout(r, 200));
        return { key, value: `slow:${key}` };
      },
    });
    const fast = createTool({
      name: 'fast_lookup',
      description: 'Looks something up fast.',
      parameters: z.object({ key: z.string() }),
      execute: async ({ key }) => {
        await rendezvous('fast');
        return `fast:${key}`;
      },
    });
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'slow_lookup', input: { key: 'a' }, toolCallId: 'c1' },
          { toolName: 'fast_lookup', input: { key: 'b' }, toolCallId: 'c2' },
        ],
      },
      (request) => ({ text: `saw ${[...toolResultsSeen(request).keys()].join(',')}` }),
    ]);
    const agent = new Agent({ name: 'parallel', instructions: 'Be brief.', model, tools: [slow, fast] });

    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('parallel', 'look up a and b');
      const result = await run.result();
      expect(result.text).toBe('saw c1,c2');
      expect(result.stopReason).toBe('completed');
      expect(result.steps).toHaveLength(2);
      expect(result.toolResults.map((r) => r.toolCallId)).toEqual(['c1', 'c2']);
      expect(result.toolResults[0]!.output).toEqual({ type: 'json', value: { key: 'a', value: 'slow:a' } });
      expect(result.toolResults[1]!.output).toEqual({ type: 'text', value: 'fast:b' });
      expect(result.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
      // The model saw the system prompt, and the tool schemas but not their code.
      expect(model.requests[0]!.prompt[0]).toMatchObject({ role: 'system', content: 'Be brief.' });
      expect(model.requests[0]!.toolNames.sort()).toEqual(['fast_lookup', 'slow_lookup']);

      const history = await run.handle.fetchHistory();
      expect(activityCounts(history)).toEqual({ describeAgent: 1, generate: 2, executeTool: 2 });
      await recordHistory('multi-step-parallel', env, run.id);
    });
  });

  it('turns unknown tools, invalid arguments, thrown errors and bad outputs into results the model reads', async () => {
    let executions = 0;
    const add = createTool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ a, b }) => {
        executions++;
        return a + b;
      },
    });
    const boom = createTool({
      name: 'boom',
      description: 'Always fails.',
      parameters: z.object({}),
      execute: async () => {
        const err = new Error('the disk is full') as Error & { code?: string };
        err.code = 'ENOSPC';
        throw err;
      },
    });
    const badOutput = createTool({
      name: 'bad_output',
      description: 'Returns something that does not match its output schema.',
      parameters: z.object({}),
      outputSchema: z.object({ n: z.number() }),
      execute: async () => ({ n: 'not a number' }) as unknown as { n: number },
    });
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'nope', input: {}, toolCallId: 'u1' },
          { toolName: '__proto__', input: {}, toolCallId: 'u2' },
          { toolName: 'add', input: { a: 1, b: 'two' }, toolCallId: 'i1' },
          { toolName: 'add', input: '{"a": 1, ', toolCallId: 'i2' },
          { toolName: 'boom', input: {}, toolCallId: 'e1' },
          { toolName: 'bad_output', input: {}, toolCallId: 'o1' },
          { toolName: 'add', input: { a: 2, b: 3 }, toolCallId: 'ok' },
        ],
      },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'clumsy', instructions: '', model, tools: [add, boom, badOutput] });

    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('clumsy', 'do things');
      const result = await run.result();
      expect(result.text).toBe('done');
      const seen = toolResultsSeen(model.requests[1]);
      const available = 'Available tools: add, boom, bad_output.';
      expect(seen.get('u1')).toEqual({
        type: 'error-text',
        value: `Model tried to call unavailable tool 'nope'. ${available}`,
      });
      expect(seen.get('u2')).toEqual({
        type: 'error-text',
        value: `Model tried to call unavailable tool '__proto__'. ${available}`,
      });
      expect(seen.get('i1')).toMatchObject({
        type: 'error-text',
        value: expect.stringContaining('Invalid input for tool add:'),
      });
      expect(seen.get('i2')).toMatchObject({
        type: 'error-text',
        value: expect.stringContaining('Invalid input for tool add:'),
      });
      expect(seen.get('e1')).toMatchObject({
        type: 'json',
        value: {
          error: true,
          name: 'Error',
          message: 'the disk is full',
          code: 'ENOSPC',
          toolCallId: 'e1',
          toolName: 'boom',
        },
      });
      expect(seen.get('o1')).toMatchObject({
        type: 'json',
        value: { error: true, message: expect.stringMatching(/^Output validation failed: /), toolName: 'bad_output' },
      });
      expect(seen.get('ok')).toEqual({ type: 'json', value: 5 });
      // Invalid calls never reached execute; only the valid `add` ran.
      expect(executions).toBe(1);
      expect(result.steps[0]!.toolCalls.map((c) => c.outcome)).toEqual([
        'invalid',
        'invalid',
        'invalid',
        'invalid',
        'error',
        'error',
        'ok',
      ]);
      const history = await run.handle.fetchHistory();
      expect(activityCounts(history).executeTool).toBe(3);
      await recordHistory('bad-tool-calls', env, run.id);
    });
  });

  it('pauses on a client-side tool until its result is submitted', async () => {
    const askUser = createTool({
      name: 'ask_user',
      description: 'Asks the user a question in the UI.',
      parameters: z.object({ question: z.string() }),
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'ask_user', input: { question: 'Favourite colour?' }, toolCallId: 'q1' }] },
      (request) => ({ text: `user said ${JSON.stringify(toolResultsSeen(request).get('q1'))}` }),
    ]);
    const agent = new Agent({ name: 'asker', instructions: '', model, tools: [askUser] });

    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('asker', 'ask me');
      await expect.poll(async () => (await run.state()).pendingToolResults.length, { timeout: 10_000 }).toBe(1);
      const state = await run.state();
      expect(state.status).toBe('waiting');
      expect(state.pendingToolResults[0]).toMatchObject({
        toolCallId: 'q1',
        toolName: 'ask_user',
        args: { question: 'Favourite colour?' },
      });
      await expect(run.submitToolResult('nope', 'x')).rejects.toThrow(/No client-side tool call 'nope'/);
      await run.submitToolResult('q1', { colour: 'green' });
      const result = await run.result();
      expect(result.text).toBe('user said {"type":"json","value":{"colour":"green"}}');
      expect(result.steps[0]!.toolCalls[0]!.outcome).toBe('client-result');
      const history = await run.handle.fetchHistory();
      expect(activityCounts(history).executeTool).toBeUndefined();
      await recordHistory('client-side-tool', env, run.id);
    });
  });

  it('stops at maxSteps', async () => {
    const ping = createTool({
      name: 'ping',
      description: 'Pings.',
      parameters: z.object({}),
      execute: async () => 'pong',
    });
    // The model never stops calling tools on its own.
    const looping = new ScriptedLanguageModel(
      Array.from({ length: 10 }, () => ({ toolCalls: [{ toolName: 'ping', input: {} }] })),
    );
    const agent = new Agent({
      name: 'looper',
      instructions: '',
      model: looping,
      tools: [ping],
      maxSteps: 8,
      activity: { generate: { startToCloseTimeout: '45s' }, tools: { heartbeatTimeout: '7s' } },
    });

    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('looper', 'go', { maxSteps: 3 });
      const result = await run.result();
      expect(result.stopReason).toBe('max-steps');
      expect(result.steps).toHaveLength(3);
      expect(looping.requests).toHaveLength(3);
      const history = await run.handle.fetchHistory();
      expect(activityCounts(history)).toEqual({ describeAgent: 1, generate: 3, executeTool: 3 });
      // The agent's activity options reached Temporal.
      const scheduled = (type: string) =>
        history.events?.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
          ?.activityTaskScheduledEventAttributes;
      expect(Number(scheduled('generate')?.startToCloseTimeout?.seconds)).toBe(45);
      expect(Number(scheduled('executeTool')?.heartbeatTimeout?.seconds)).toBe(7);
      await recordHistory('max-steps', env, run.id);
    });
  });

  it('ends the run with a ToolDeniedError, code and HTTP status kept', async () => {
    const pay = createTool({
      name: 'pay',
      description: 'Pays an invoice.',
      parameters: z.object({ amount: z.number() }),
      execute: async () => {
        throw new ToolDeniedError({
          toolName: 'pay',
          message: 'Monthly payment quota exceeded.',
          code: 'TOOL_QUOTA_EXCEEDED',
          httpStatus: 429,
        });
      },
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'pay', input: { amount: 10 } }] },
      { text: 'never reached' },
    ]);
    const agent = new Agent({ name: 'payer', instructions: '', model, tools: [pay] });

    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('payer', 'pay it');
      const error = await run.result().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(ToolDeniedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        message: 'Monthly payment quota exceeded.',
        code: 'TOOL_QUOTA_EXCEEDED',
        httpStatus: 429,
      });
      expect(model.requests).toHaveLength(1);
      const events = [];
      for await (const event of run.events()) events.push(event.type);
      expect(events.at(-1)).toBe('failed');
      await recordHistory('tool-denied-error', env, run.id);
    });
  });

  it("offers the worker's current tools at each step: a changed schema and approval policy apply from the next step", async () => {
    const taskQueue = uniqueTaskQueue();
    const pause = createTool({ name: 'pause', description: 'Waits for the client.', parameters: z.object({}) });
    const lookupV1 = createTool({
      name: 'lookup',
      description: 'Looks up a record by numeric id.',
      parameters: z.object({ id: z.number() }),
      execute: async ({ id }) => `v1 record ${id}`,
    });
    const lookupV2 = createTool({
      name: 'lookup',
      description: 'Looks up a record by key.',
      parameters: z.object({ key: z.string() }),
      needsApproval: true,
      execute: async ({ key }) => `v2 record ${key}`,
    });
    const steps = [
      { toolCalls: [{ toolName: 'lookup', input: { id: 7 }, toolCallId: 'l1' }] },
      { toolCalls: [{ toolName: 'pause', input: {}, toolCallId: 'p1' }] },
      // After the swap: arguments of the old schema no longer validate, and the tool now needs approval.
      {
        toolCalls: [
          { toolName: 'lookup', input: { id: 8 }, toolCallId: 'l2' },
          { toolName: 'lookup', input: { key: 'k9' }, toolCallId: 'l3' },
        ],
      },
      { text: 'done' },
    ];
    const before = new ScriptedLanguageModel({ steps, stepSelection: 'assistant-turns' });
    const after = new ScriptedLanguageModel({ steps, stepSelection: 'assistant-turns' });
    const agent = (model: ScriptedLanguageModel, lookup: typeof lookupV1 | typeof lookupV2) =>
      new Agent({ name: 'evolving-tools', instructions: 'Look things up.', model, tools: [lookup, pause] });

    const run = await withAgentWorker(
      env,
      [agent(before, lookupV1)],
      async ({ start }) => {
        const run = await start('evolving-tools', 'go');
        await expect.poll(async () => (await run.state()).pendingToolResults.length, { timeout: 10_000 }).toBe(1);
        return run;
      },
      { taskQueue },
    );
    const result = await withAgentWorker(
      env,
      [agent(after, lookupV2)],
      async () => {
        await run.submitToolResult('p1', 'resumed');
        await expect.poll(async () => (await run.state()).pendingApprovals.map((p) => p.toolCallId)).toEqual(['l3']);
        await run.approve('l3');
        return await run.result();
      },
      { taskQueue },
    );

    const schemaOf = (request: ScriptedRequest | undefined) =>
      request?.tools.find((t) => t.name === 'lookup' && t.type === 'function') as { inputSchema: unknown } | undefined;
    expect(JSON.stringify(schemaOf(before.requests[0])?.inputSchema)).toContain('"id"');
    expect(JSON.stringify(schemaOf(after.requests[0])?.inputSchema)).toContain('"key"');
    const outputs = new Map(result.toolResults.map((r) => [r.toolCallId, r.output]));
    expect(outputs.get('l1')).toEqual({ type: 'text', value: 'v1 record 7' });
    expect(outputs.get('l2')).toMatchObject({
      type: 'error-text',
      value: expect.stringContaining('Invalid input for tool lookup'),
    });
    expect(outputs.get('l3')).toEqual({ type: 'text', value: 'v2 record k9' });
    expect(result.approvals).toMatchObject([{ toolCallId: 'l3', approved: true }]);
    expect(result.text).toBe('done');
  });

  it('keeps the agent description it recorded when the worker restarts with a changed agent', async () => {
    const taskQueue = uniqueTaskQueue();
    const wait = createTool({
      name: 'client_wait',
      description: 'Waits for the client.',
      parameters: z.object({}),
    });
    const script = () =>
      new ScriptedLanguageModel({
        steps: [
          { toolCalls: [{ toolName: 'client_wait', input: {} }] },
          { toolCalls: [{ toolName: 'client_wait', input: {} }] },
          { text: 'three steps' },
        ],
        stepSelection: 'assistant-turns',
      });
    const before = new Agent({
      name: 'evolving',
      instructions: 'Version one.',
      model: script(),
      tools: [wait],
      maxSteps: 2,
    });
    const after = new Agent({
      name: 'evolving',
      instructions: 'Version two.',
      model: script(),
      tools: [wait],
      maxSteps: 10,
    });

    const run = await withAgentWorker(
      env,
      [before],
      async ({ start }) => {
        const run = await start('evolving', 'go');
        await expect.poll(async () => (await run.state()).pendingToolResults.length, { timeout: 10_000 }).toBe(1);
        return run;
      },
      { taskQueue },
    );
    await withAgentWorker(
      env,
      [after],
      async () => {
        const [pending] = (await run.state()).pendingToolResults;
        await run.submitToolResult(pending!.toolCallId, 'ok');
        await expect.poll(async () => (await run.state()).pendingToolResults.length, { timeout: 10_000 }).toBe(1);
        const [second] = (await run.state()).pendingToolResults;
        await run.submitToolResult(second!.toolCallId, 'ok');
        const result = await run.result();
        // The recorded description (maxSteps 2, 'Version one.') governs the whole run.
        expect(result.stopReason).toBe('max-steps');
        expect(result.steps).toHaveLength(2);
        expect(result.messages[0]).toEqual({ role: 'system', content: 'Version one.' });
      },
      { taskQueue },
    );
  });

  it('retries a rate-limited model call after its retry-after, and fails fast on a bad request', async () => {
    const limited = new ScriptedLanguageModel([
      { error: { message: 'slow down', statusCode: 429, responseHeaders: { 'retry-after': '1' } } },
      { text: 'recovered' },
    ]);
    const rejected = new ScriptedLanguageModel([{ error: { message: 'unknown parameter', statusCode: 400 } }]);
    const agents = [
      new Agent({ name: 'limited', instructions: '', model: limited }),
      new Agent({ name: 'rejected', instructions: '', model: rejected }),
    ];
    await withAgentWorker(env, agents, async ({ start }) => {
      const startedAt = Date.now();
      const run = await start('limited', 'hi');
      const result = await run.result();
      expect(result.text).toBe('recovered');
      expect(limited.requests).toHaveLength(2);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
      const history = await run.handle.fetchHistory();
      const generateStarts = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
      expect(generateStarts.at(-1)?.activityTaskStartedEventAttributes?.attempt).toBe(2);

      const bad = await start('rejected', 'hi');
      const error = await bad.result().catch((err: unknown) => err);
      // RunFailedError → WorkflowFailedError → ActivityFailure → the classified ApplicationFailure.
      const failure = (error as { cause?: { cause?: { cause?: { type?: string; message?: string } } } }).cause?.cause
        ?.cause;
      expect(failure?.message).toMatch(/unknown parameter/);
      expect(failure?.type).toBe('Model.BadRequest');
      expect(rejected.requests).toHaveLength(1);
    });
  });

  it('flags an oversized tool output with an error naming the tool; the run goes on', async () => {
    const big = createTool({
      name: 'big_report',
      description: 'Returns a huge report.',
      parameters: z.object({}),
      execute: async () => 'x'.repeat(100_000),
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'big_report', input: {}, toolCallId: 'b' }] },
      (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('b')) }),
    ]);
    const agent = new Agent({ name: 'reporter', instructions: '', model, tools: [big] });
    await withAgentWorker(
      env,
      [agent],
      async ({ start }) => {
        const run = await start('reporter', 'report');
        const result = await run.result();
        const seen = JSON.parse(result.text) as { type: string; value: { message: string; toolName: string } };
        expect(seen.type).toBe('json');
        expect(seen.value.toolName).toBe('big_report');
        expect(seen.value.message).toMatch(/^Tool 'big_report' returned \d+ bytes, over the 50000-byte limit/);
        const history = await run.handle.fetchHistory();
        expect(JSON.stringify(history.events).length).toBeLessThan(100_000);
      },
      { limits: { toolOutputBytes: 50_000 } },
    );
  });
});
