// A model is untrusted input. Whatever it returns — thousands of tool calls, duplicate call ids, a response larger
// than Temporal's payload limit — the run reaches a clear, bounded outcome: never a workflow task failing in a loop,
// never a second bill for the same response, never a call lost or run with another call's arguments.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { createTestEnv } from '../support/temporal.js';
import { activityCounts, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

function counter() {
  const calls: string[] = [];
  const concurrency = { active: 0, max: 0 };
  const tool = createTool({
    name: 'lookup',
    description: 'Looks a key up.',
    parameters: z.object({ key: z.string() }),
    execute: async ({ key }) => {
      calls.push(key);
      concurrency.max = Math.max(concurrency.max, ++concurrency.active);
      await new Promise((resolve) => setTimeout(resolve, 20));
      concurrency.active--;
      return `value of ${key}`;
    },
  });
  return { calls, concurrency, tool };
}

describe('adversarial model output', () => {
  it('caps the tool calls of one step: 2,100 calls run the first 128, 32 at a time; the rest are results the model reads', async () => {
    const { calls, concurrency, tool } = counter();
    const toolCalls = Array.from({ length: 2_100 }, (_, i) => ({
      toolName: 'lookup',
      input: { key: `k${i}` },
      toolCallId: `c${i}`,
    }));
    const model = new ScriptedLanguageModel([
      { toolCalls },
      (request) => {
        const seen = toolResultsSeen(request);
        return { text: `${seen.size} results; last: ${JSON.stringify(seen.get('c2099'))}` };
      },
    ]);
    await withAgentWorker(env, [new Agent({ name: 'flood', instructions: '', model, tools: [tool] })], async (h) => {
      const run = await h.start('flood', 'go', { workflow: { workflowExecutionTimeout: '90 seconds' } });
      const result = await run.result();
      expect(calls).toHaveLength(128);
      expect(new Set(calls).size).toBe(128);
      expect(concurrency.max).toBeLessThanOrEqual(32);
      expect(concurrency.max).toBeGreaterThan(1);
      expect(result.text).toMatch(/^2100 results; last: .*Too many tool calls in one step: the model made 2100 calls/);
      expect(result.steps[0]!.toolCalls.filter((c) => c.outcome === 'invalid')).toHaveLength(2_100 - 128);
      const counts = activityCounts(await run.handle.fetchHistory());
      expect(counts.executeTool).toBe(128);
    });
  });

  it('keeps both calls when a response repeats a tool-call id: each runs with its own arguments', async () => {
    const { calls, tool } = counter();
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'lookup', input: { key: 'first' }, toolCallId: 'dup' },
          { toolName: 'lookup', input: { key: 'second' }, toolCallId: 'dup' },
        ],
      },
      (request) => ({ text: JSON.stringify([...toolResultsSeen(request)]) }),
    ]);
    await withAgentWorker(env, [new Agent({ name: 'dups', instructions: '', model, tools: [tool] })], async (h) => {
      const run = await h.start('dups', 'go');
      const result = await run.result();
      expect(calls.sort()).toEqual(['first', 'second']);
      const seen = JSON.parse(result.text) as [string, { value: string }][];
      expect(seen.map(([, output]) => output.value).sort()).toEqual(['value of first', 'value of second']);
      expect(new Set(seen.map(([id]) => id)).size).toBe(2);
      expect(result.toolCalls.map((c) => c.input)).toEqual([{ key: 'first' }, { key: 'second' }]);
    });
  });

  it('asks the client for each of two client-side calls that share an id', async () => {
    const ask = createTool({
      name: 'ask_user',
      description: 'Asks the user.',
      parameters: z.object({ q: z.string() }),
    });
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'ask_user', input: { q: 'one' }, toolCallId: 'same' },
          { toolName: 'ask_user', input: { q: 'two' }, toolCallId: 'same' },
        ],
      },
      (request) => ({ text: JSON.stringify([...toolResultsSeen(request).values()]) }),
    ]);
    await withAgentWorker(env, [new Agent({ name: 'asker', instructions: '', model, tools: [ask] })], async (h) => {
      const run = await h.start('asker', 'go');
      await expect.poll(async () => (await run.state()).pendingToolResults.length, { timeout: 15_000 }).toBe(2);
      const pending = (await run.state()).pendingToolResults;
      expect(new Set(pending.map((p) => p.toolCallId)).size).toBe(2);
      for (const p of pending) await run.submitToolResult(p.toolCallId, `answer to ${(p.args as { q: string }).q}`);
      const result = await run.result();
      expect(JSON.parse(result.text)).toEqual([
        { type: 'text', value: 'answer to one' },
        { type: 'text', value: 'answer to two' },
      ]);
    });
  });

  it('fails once, without calling the model again, when a response exceeds the payload limit', async () => {
    const model = new ScriptedLanguageModel([{ text: 'x'.repeat(2_500_000) }, { text: 'x'.repeat(2_500_000) }]);
    await withAgentWorker(env, [new Agent({ name: 'verbose', instructions: '', model })], async (h) => {
      const run = await h.start('verbose', 'go', { workflow: { workflowExecutionTimeout: '60 seconds' } });
      const error = await run.result().catch((err: unknown) => err);
      expect((error as Error).message).toMatch(/response is \d+ bytes, over the \d+-byte limit/);
      expect(model.requests).toHaveLength(1);
      const state = await run.state();
      expect(state.status).toBe('failed');
    });
  });

  it('ends a streaming tool whose checkpoint is too large with an error naming the tool and the size', async () => {
    let attempts = 0;
    const stream = createTool({
      name: 'dump_rows',
      description: 'Streams rows.',
      parameters: z.object({}),
      execute: async function* () {
        attempts++;
        yield { rows: 1 };
        yield { blob: 'y'.repeat(2_500_000) };
        yield { rows: 3 };
      },
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'dump_rows', input: {}, toolCallId: 'd' }] },
      (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('d')) }),
    ]);
    await withAgentWorker(env, [new Agent({ name: 'dumper', instructions: '', model, tools: [stream] })], async (h) => {
      const run = await h.start('dumper', 'go', { workflow: { workflowExecutionTimeout: '60 seconds' } });
      const result = await run.result();
      expect(attempts).toBe(1);
      expect(result.text).toMatch(/dump_rows/);
      expect(result.text).toMatch(/checkpoint of \d+ bytes, over the \d+-byte limit/);
    });
  });
});
