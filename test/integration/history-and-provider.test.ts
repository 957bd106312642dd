// History stays linear as a conversation grows, and the OpenAI provider path works over real HTTP.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { startOpenAIFakeServer } from '../models/openai-fake-server.js';
import { createTestEnv } from '../support/temporal.js';
import { activityCounts, recordHistory, withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Sum of the payload bytes anywhere in a history (inputs, results, signals, queries never appear). */
function payloadBytes(value: unknown): number {
  if (!value || typeof value !== 'object') return 0;
  if (value instanceof Uint8Array) return 0;
  const record = value as Record<string, unknown>;
  if (record.data instanceof Uint8Array && 'metadata' in record) return record.data.byteLength;
  let total = 0;
  for (const child of Object.values(record)) total += payloadBytes(child);
  return total;
}

describe('history', () => {
  it('records each message once: a 30-step run with 10 KB tool outputs stays under 2x its distinct message bytes', async () => {
    const fetchPage = createTool({
      name: 'fetch_page',
      description: 'Fetches page n of a long document.',
      parameters: z.object({ n: z.number().int() }),
      // 10 KB of text that differs per page, so nothing is deduplicated by accident.
      execute: async ({ n }) => `page ${n}: ` + `${n}`.padStart(8, '0').repeat(1_280),
    });
    const steps = 30;
    const model = new ScriptedLanguageModel([
      ...Array.from({ length: steps - 1 }, (_, i) => ({
        toolCalls: [{ toolName: 'fetch_page', input: { n: i + 1 } }],
      })),
      { text: 'read everything' },
    ]);
    const agent = new Agent({
      name: 'reader',
      instructions: 'Read the whole document.',
      model,
      tools: [fetchPage],
      maxSteps: 40,
    });

    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('reader', 'read the document');
      const result = await run.result();
      expect(result.steps).toHaveLength(steps);
      const distinct = result.messages.reduce((sum, m) => sum + Buffer.byteLength(JSON.stringify(m)), 0);
      expect(distinct).toBeGreaterThan(29 * 10_000);
      const history = await run.handle.fetchHistory();
      const recorded = payloadBytes(history.events);
      expect(activityCounts(history)).toEqual({ describeAgent: 1, generate: steps, executeTool: steps - 1 });
      // Linear: each message recorded once, plus small per-step overhead. Quadratic growth would be ~15x here.
      expect(recorded).toBeLessThan(2 * distinct);
      console.info(
        `history payload bytes ${recorded} for ${distinct} distinct message bytes (${(recorded / distinct).toFixed(2)}x)`,
      );
    });
  });
});

describe('large transcripts', () => {
  it('completes a run whose transcript outgrows one payload, without continuing as new past the limit', async () => {
    const dump = createTool({
      name: 'dump',
      description: 'Returns a large export.',
      parameters: z.object({ part: z.number() }),
      execute: async ({ part }) => `${part}`.repeat(1_200_000),
    });
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'dump', input: { part: 1 }, toolCallId: 'a' },
          { toolName: 'dump', input: { part: 2 }, toolCallId: 'b' },
        ],
      },
      { toolCalls: [{ toolName: 'dump', input: { part: 3 }, toolCallId: 'c' }] },
      { text: 'exported' },
    ]);
    const agent = new Agent({ name: 'exporter', instructions: '', model, tools: [dump] });
    await withAgentWorker(env, [agent], async ({ start }) => {
      // Every step would continue as new, but 2.4 MB of transcript cannot be carried in one payload.
      const run = await start('exporter', 'export everything', { historyEventBudget: 1 });
      const result = await run.result();
      expect(result.text).toBe('exported');
      // The transcript query answers in pages, so the whole 3.6 MB transcript is readable.
      const outputs = result.toolResults.map((r) => (r.output as { value: string }).value.length);
      expect(outputs).toEqual([1_200_000, 1_200_000, 1_200_000]);
      // Carrying 2.4 MB into a new execution is impossible, so it stayed in its first execution.
      const description = await run.handle.describe();
      expect(description.runId).toBe(description.raw.workflowExecutionInfo?.firstRunId);
    });
  });
});

describe('OpenAI provider over HTTP', () => {
  it('runs a tool-calling conversation through @ai-sdk/openai against an OpenAI-compatible server', async () => {
    const server = await startOpenAIFakeServer({
      apiKey: 'sk-test',
      chat: [
        { toolCalls: [{ name: 'get_time', arguments: { zone: 'UTC' }, id: 'call_t' }] },
        (request) => {
          const toolMessage = request.body.messages.find((m: { role: string }) => m.role === 'tool');
          return { text: `It is ${JSON.parse(toolMessage.content).time}.` };
        },
      ],
    });
    try {
      const getTime = createTool({
        name: 'get_time',
        description: 'Current time in a zone.',
        parameters: z.object({ zone: z.string() }),
        execute: async ({ zone }) => ({ zone, time: '12:00' }),
      });
      const agent = new Agent({
        name: 'clock',
        instructions: 'Tell the time.',
        model: 'openai/gpt-fake',
        tools: [getTime],
      });
      const providers = new ProviderRegistry({ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL } });

      await withAgentWorker(
        env,
        [agent],
        async ({ start }) => {
          const run = await start('clock', 'What time is it?');
          const result = await run.result();
          expect(result.text).toBe('It is 12:00.');
          expect(server.chatRequests).toHaveLength(2);
          const first = server.chatRequests[0]!;
          expect(first.headers.authorization).toBe('Bearer sk-test');
          expect(first.body.model).toBe('gpt-fake');
          expect(first.body.messages[0]).toMatchObject({ role: 'system', content: 'Tell the time.' });
          expect(first.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['get_time']);
          expect(first.body.tools[0].function.parameters.properties.zone.type).toBe('string');
          await recordHistory('openai-http', env, run.id);
        },
        { providers },
      );
    } finally {
      await server.close();
    }
  });
});
