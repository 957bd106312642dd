// What a durable run hands its tools and its model, end to end on a real server: the run's user and context reach
// tools and per-run tool sets, toModelOutput changes only what the model sees, a failing retriever is an event,
// generateText waits for the result, tool provider options reach the model, and the worker's transcript cache and
// the run's transcript query give the model the very same messages.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedLanguageModel, type ScriptedReply, type ScriptedRequest } from '../../src/models/scripted-model.js';
import type { RunEvent } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { createTestEnv } from '../support/temporal.js';
import { toolResultsSeen, withAgentWorker, type HarnessOptions } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

describe('run context in a durable run', () => {
  it("gives tools the run's userId, conversationId and context, and builds per-run tools from them", async () => {
    const seen: unknown[] = [];
    const whoAmI = createTool({
      name: 'who_am_i',
      description: 'Says who is asking.',
      parameters: z.object({}),
      execute: async (_args, options) => {
        seen.push({
          userId: options.userId,
          conversationId: options.conversationId,
          plan: options.context.get('plan'),
        });
        return `user ${options.userId}`;
      },
    });
    const adminOnly = createTool({
      name: 'admin_reset',
      description: 'Resets everything.',
      parameters: z.object({}),
      execute: async () => 'reset',
    });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'who_am_i', input: {}, toolCallId: 'w' }] }, { text: 'ok' }],
    });
    const agent = new Agent({
      name: 'contextual',
      instructions: '',
      model,
      tools: (ctx) => (ctx.context.get('plan') === 'admin' ? [whoAmI, adminOnly] : [whoAmI]),
    });
    await withAgentWorker(env, [agent], async (h) => {
      const admin = await h.start('contextual', 'go', {
        userId: 'u-admin',
        conversationId: 'c1',
        context: { plan: 'admin' },
      });
      await admin.result();
      const basic = await h.start('contextual', 'go', { userId: 'u-basic', context: { plan: 'basic' } });
      await basic.result();
    });
    expect(seen).toEqual([
      { userId: 'u-admin', conversationId: 'c1', plan: 'admin' },
      { userId: 'u-basic', conversationId: undefined, plan: 'basic' },
    ]);
    const toolsOf = (request: ScriptedRequest) => request.toolNames.slice().sort();
    expect(toolsOf(model.requests[0]!)).toEqual(['admin_reset', 'who_am_i']);
    expect(toolsOf(model.requests[2]!)).toEqual(['who_am_i']);
  });

  it('applies toModelOutput to what the model sees while hooks see the real output; provider options reach the model', async () => {
    const hookSaw: unknown[] = [];
    const report = createTool({
      name: 'report',
      description: 'Builds a report.',
      parameters: z.object({}),
      providerOptions: { openai: { strict: true } },
      toModelOutput: ({ output }) => ({ type: 'text', value: `rows: ${(output as { rows: unknown[] }).rows.length}` }),
      hooks: { onEnd: ({ output }) => void hookSaw.push(output) },
      execute: async () => ({ rows: [1, 2, 3], raw: 'x'.repeat(100) }),
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'report', input: {}, toolCallId: 'r' }] },
      (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('r')) }),
    ]);
    await withAgentWorker(
      env,
      [new Agent({ name: 'reporter2', instructions: '', model, tools: [report] })],
      async (h) => {
        const result = await (await h.start('reporter2', 'go')).result();
        expect(JSON.parse(result.text)).toEqual({ type: 'text', value: 'rows: 3' });
        expect(result.toolResults[0]!.output).toEqual({ type: 'text', value: 'rows: 3' });
      },
    );
    expect(hookSaw).toEqual([{ rows: [1, 2, 3], raw: 'x'.repeat(100) }]);
    const offered = model.requests[0]!.tools.find((t) => t.name === 'report') as { providerOptions?: unknown };
    expect(offered.providerOptions).toEqual({ openai: { strict: true } });
  });

  it('records a failing retriever as an event and runs without its context', async () => {
    const model = new ScriptedLanguageModel([(request) => ({ text: JSON.stringify(request.prompt[0]?.content) })]);
    const agent = new Agent({
      name: 'forgetful',
      instructions: 'Base instructions.',
      model,
      retriever: {
        retrieve: async () => {
          throw new Error('knowledge base offline');
        },
      },
    });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('forgetful', 'what do you know?');
      expect((await run.result()).text).toBe(JSON.stringify('Base instructions.'));
      const events: RunEvent[] = [];
      for await (const event of run.events()) events.push(event);
      expect(events.find((e) => e.type === 'retriever-error')).toMatchObject({ message: 'knowledge base offline' });
    });
  });

  it('generateText starts a run and waits for its result', async () => {
    const model = new ScriptedLanguageModel([{ text: 'Hello there.' }]);
    await withAgentWorker(env, [new Agent({ name: 'greeter', instructions: '', model })], async (h) => {
      const result = await h.client.generateText('greeter', 'hi', {
        workflow: { workflowExecutionTimeout: '1 minute' },
      });
      expect(result.text).toBe('Hello there.');
      expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    });
  });
});

describe('transcript paths', () => {
  /**
   * One scenario with every kind of result the transcript holds: executed (plain and through toModelOutput), with
   * several parts in one message, denied by a person, refused as invalid, and submitted by the client.
   */
  function scenario() {
    const steps: ScriptedReply[] = [
      {
        toolCalls: [
          { toolName: 'lookup', input: { key: 'a' }, toolCallId: 'l1' },
          { toolName: 'summary', input: {}, toolCallId: 's1' },
          { toolName: 'lookup', input: { key: 7 }, toolCallId: 'bad' },
        ],
      },
      {
        toolCalls: [
          { toolName: 'dangerous', input: {}, toolCallId: 'd1' },
          { toolName: 'ask_client', input: { q: 'colour?' }, toolCallId: 'c1' },
        ],
      },
      { toolCalls: [{ toolName: 'lookup', input: { key: 'b' }, toolCallId: 'l2' }] },
      { text: 'all done' },
    ];
    const model = new ScriptedLanguageModel({ stepSelection: 'assistant-turns', steps });
    const tools = [
      createTool({
        name: 'lookup',
        description: 'Looks a key up.',
        parameters: z.object({ key: z.string() }),
        execute: async ({ key }) => ({ key, value: `value of ${key}`, tags: ['x', 'y'] }),
      }),
      createTool({
        name: 'summary',
        description: 'Summarises.',
        parameters: z.object({}),
        toModelOutput: () => ({ type: 'content', value: [{ type: 'text', text: 'short summary' }] }),
        execute: async () => ({ long: 'a long summary '.repeat(20) }),
      }),
      createTool({
        name: 'dangerous',
        description: 'Needs approval.',
        parameters: z.object({}),
        needsApproval: true,
        execute: async () => 'never',
      }),
      createTool({ name: 'ask_client', description: 'Client-side.', parameters: z.object({ q: z.string() }) }),
    ];
    return { model, agent: new Agent({ name: 'paths', instructions: 'Be exact.', model, tools }) };
  }

  async function runScenario(options: HarnessOptions): Promise<ScriptedRequest[]> {
    const { model, agent } = scenario();
    await withAgentWorker(
      env,
      [agent],
      async (h) => {
        const run = await h.start('paths', 'do it all');
        await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(1);
        await run.deny('d1', { reason: 'not today' });
        await expect.poll(async () => (await run.state()).pendingToolResults.length, { timeout: 15_000 }).toBe(1);
        await run.submitToolResult('c1', { colour: 'blue' });
        expect((await run.result()).text).toBe('all done');
      },
      options,
    );
    return model.requests;
  }

  it('gives the model the same messages from the worker cache as from the run query', async () => {
    const cached = await runScenario({});
    // A cache that holds nothing: every model call reads the transcript through the run's query.
    const queried = await runScenario({ transcriptCache: { maxBytes: 1, toolOutputMaxBytes: 1 } });
    expect(cached).toHaveLength(4);
    expect(queried.map((r) => r.prompt)).toEqual(cached.map((r) => r.prompt));
    const lastPrompt = JSON.stringify(cached.at(-1)!.prompt);
    for (const expected of ['value of a', 'short summary', 'Invalid input for tool lookup', 'not today', 'blue']) {
      expect(lastPrompt).toContain(expected);
    }
  });
});
