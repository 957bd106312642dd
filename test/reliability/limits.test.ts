// Temporal's limits — 2 MB per payload, 4 MB per gRPC message, 50k events — met with a clear, bounded outcome on a
// real server: sizes measured in UTF-8 bytes of the exact payload, state that outgrows continue-as-new stays in its
// execution, large results travel by reference, and every answer a client reads is paged or previewed.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { createTestEnv, randomWorkflowId } from '../support/temporal.js';
import { toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** A tool returning `n` euro signs: n UTF-16 units, 3n UTF-8 bytes. */
const euros = createTool({
  name: 'euros',
  description: 'Returns euro signs.',
  parameters: z.object({ n: z.number() }),
  execute: async ({ n }) => '€'.repeat(n),
});

const short = { workflow: { workflowExecutionTimeout: '60 seconds' } } as const;

describe('limits', () => {
  it('continues as new with a 1.2 MB input: the input stays in the first execution', async () => {
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { toolCalls: [{ toolName: 'euros', input: { n: 1 }, toolCallId: 'e1' }] },
        { toolCalls: [{ toolName: 'euros', input: { n: 1 }, toolCallId: 'e2' }] },
        { text: 'done' },
      ],
    });
    const agent = new Agent({ name: 'big-input', instructions: '', model, tools: [euros] });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('big-input', 'x'.repeat(1_200_000), { ...short, historyEventBudget: 1 });
      const result = await run.result();
      expect(result.text).toBe('done');
      const events = [];
      for await (const event of run.events()) events.push(event.type);
      expect(events).toContain('continued-as-new');
      expect((await run.messages())[0]).toEqual({ role: 'user', content: 'x'.repeat(1_200_000) });
    });
  });

  it('stays in its execution when the state is too large in UTF-8 to continue as new (two outputs of 400k €)', async () => {
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { toolCalls: [{ toolName: 'euros', input: { n: 400_000 }, toolCallId: 'e1' }] },
        { toolCalls: [{ toolName: 'euros', input: { n: 400_000 }, toolCallId: 'e2' }] },
        { toolCalls: [{ toolName: 'euros', input: { n: 1 }, toolCallId: 'e3' }] },
        { text: 'done' },
      ],
    });
    const agent = new Agent({ name: 'euro-state', instructions: '', model, tools: [euros] });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('euro-state', 'go', { ...short, historyEventBudget: 1 });
      const result = await run.result();
      expect(result.text).toBe('done');
      expect(result.messageCount).toBe(8);
    });
  });

  it('reads a completed run whose transcript holds two outputs of 495k € (pages by UTF-8 bytes)', async () => {
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'euros', input: { n: 495_000 }, toolCallId: 'a' },
          { toolName: 'euros', input: { n: 495_000 }, toolCallId: 'b' },
        ],
      },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'euro-pages', instructions: '', model, tools: [euros] });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('euro-pages', 'go', short);
      const result = await run.result();
      expect(result.toolResults.map((r) => (r.output as { value: string }).value.length)).toEqual([495_000, 495_000]);
    });
  });

  it('passes large client-side results by reference: two 1.1 MB results reach the model', async () => {
    const fetchFile = createTool({
      name: 'read_local_file',
      description: 'Client reads a file.',
      parameters: z.object({ path: z.string() }),
    });
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'read_local_file', input: { path: 'a' }, toolCallId: 'fa' },
          { toolName: 'read_local_file', input: { path: 'b' }, toolCallId: 'fb' },
        ],
      },
      (request) => ({
        text: [...toolResultsSeen(request).values()].map((o) => (o as { value: string }).value.length).join(','),
      }),
    ]);
    const agent = new Agent({ name: 'client-files', instructions: '', model, tools: [fetchFile] });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('client-files', 'go', short);
      await expect.poll(async () => (await run.state()).pendingToolResults.length, { timeout: 15_000 }).toBe(2);
      await run.submitToolResult('fa', 'a'.repeat(1_100_000));
      await run.submitToolResult('fb', 'b'.repeat(1_100_000));
      expect((await run.result()).text).toBe('1100000,1100000');
    });
  });

  it('refuses a client-side result over the size limit before recording it', async () => {
    const ask = createTool({ name: 'ask', description: 'Asks the client.', parameters: z.object({}) });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'ask', input: {}, toolCallId: 'q' }] },
      { text: 'ok' },
    ]);
    await withAgentWorker(env, [new Agent({ name: 'asker2', instructions: '', model, tools: [ask] })], async (h) => {
      const run = await h.start('asker2', 'go', short);
      await expect.poll(async () => (await run.state()).pendingToolResults.length, { timeout: 15_000 }).toBe(1);
      const before = (await run.handle.fetchHistory()).events?.length;
      await expect(run.submitToolResult('q', '€'.repeat(600_000))).rejects.toThrow(
        /1800\d+ bytes, over the 1500000-byte limit/,
      );
      expect((await run.handle.fetchHistory()).events?.length).toBe(before);
      await run.submitToolResult('q', 'small');
      expect((await run.result()).text).toBe('ok');
    });
  });

  it('truncates retrieved context that would make the recorded system prompt too large, and says so', async () => {
    const model = new ScriptedLanguageModel([(request) => ({ text: String(request.prompt[0]?.content.length) })]);
    const agent = new Agent({
      name: 'big-context',
      instructions: 'Answer from the context.',
      model,
      retriever: { retrieve: async () => 'ctx '.repeat(1_000_000) },
    });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('big-context', 'go', short);
      const result = await run.result();
      expect(Number(result.text)).toBeLessThanOrEqual(1_000_000);
      const events = [];
      for await (const event of run.events()) events.push(event);
      expect(events.find((e) => e.type === 'retriever-error')).toMatchObject({
        message: expect.stringMatching(/truncated/),
      });
    });
  });

  it('answers state() with previews of large pending arguments', async () => {
    const upload = createTool({
      name: 'upload',
      description: 'Uploads a blob.',
      parameters: z.object({ blob: z.string() }),
      needsApproval: true,
      execute: async () => 'uploaded',
    });
    const blob = 'z'.repeat(600_000);
    const model = new ScriptedLanguageModel([
      { toolCalls: ['u1', 'u2'].map((toolCallId) => ({ toolName: 'upload', input: { blob }, toolCallId })) },
      { text: 'ok' },
    ]);
    await withAgentWorker(
      env,
      [new Agent({ name: 'uploader', instructions: '', model, tools: [upload] })],
      async (h) => {
        const run = await h.start('uploader', 'go', short);
        await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(2);
        const state = await run.state();
        for (const pending of state.pendingApprovals) {
          expect(JSON.stringify(pending.args).length).toBeLessThan(3_000);
          expect(pending.args).toMatch(/… \(\d+ chars\)$/);
        }
        // The full arguments are in the transcript.
        const assistant = (await run.messages()).find((m) => m.role === 'assistant');
        expect(JSON.stringify(assistant).length).toBeGreaterThan(1_200_000);
        await run.cancel();
      },
    );
  });

  it('gives each run of a reused workflow id its own idempotency keys', async () => {
    const keys: string[] = [];
    const charge = createTool({
      name: 'charge',
      description: 'Charges a card.',
      parameters: z.object({}),
      execute: async (_args, options) => {
        keys.push(options.idempotencyKey);
        return 'charged';
      },
    });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'charge', input: {}, toolCallId: 'c1' }] }, { text: 'ok' }],
    });
    const workflowId = randomWorkflowId('reused');
    await withAgentWorker(env, [new Agent({ name: 'biller', instructions: '', model, tools: [charge] })], async (h) => {
      await (await h.start('biller', 'go', { workflowId })).result();
      await (await h.start('biller', 'go', { workflowId })).result();
    });
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });
});
