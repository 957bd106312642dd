// Embedding-ranked tool routing in durable runs: the pool is embedded by `embedBatch` activities (one per batch) on a
// run's first search, `rankTools` then embeds only the query, the worker's cache serves later searches and later runs,
// and no vector enters history. With the offline embedder (`offline/hashed-bow`) and with a real model
// (all-MiniLM-L6-v2 behind an OpenAI-compatible server, reached through `openai/...` + OPENAI_BASE_URL), whose server
// counts the requests it serves.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { jsonBytes, type ToolSearchResult } from '../../src/protocol/index.js';
import type { ToolRoutingConfig } from '../../src/routing/types.js';
import { fixtureTools, toTool } from '../fixtures/routing/load-fixture.js';
import {
  allPayloads,
  longestNumberArray,
  recordedActivities,
  type RecordedActivity,
} from '../support/activity-history.js';
import { recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';
import type { History } from '../support/history.js';
import { LOCAL_EMBEDDING_MODEL_ID, startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const search = (query: string, toolCallId: string) => ({ toolName: 'searchTools', input: { query }, toolCallId });

function searchResult(request: ScriptedRequest | undefined, toolCallId: string): ToolSearchResult {
  const output = toolResultsSeen(request).get(toolCallId) as { type: string; value: ToolSearchResult };
  expect(output.type).toBe('json');
  return output.value;
}

function agentOf(model: ScriptedLanguageModel, toolRouting: ToolRoutingConfig, count?: number): Agent {
  const tools = fixtureTools().slice(0, count);
  return new Agent({ name: 'router', instructions: '', model, tools: tools.map((spec) => toTool(spec)), toolRouting });
}

function of(history: History, type: string): RecordedActivity[] {
  return recordedActivities(history).filter((activity) => activity.type === type);
}

/** Nothing in the history looks like a vector, and it stays small. */
function expectNoVectors(history: History): void {
  expect(longestNumberArray(allPayloads(history))).toBeLessThan(16);
}

describe('embedding routing in a durable run (offline embedder)', () => {
  it('embeds the pool in one embedBatch activity per batch once per run, then only the query per search', async () => {
    const routing: ToolRoutingConfig = { embedding: { model: 'offline/hashed-bow', maxBatchSize: 4 }, topK: 2 };
    // Steps picked by the transcript: each run gets the same script.
    const model = new ScriptedLanguageModel({
      steps: [
        { toolCalls: [search('weather forecast for a city', 's1')] },
        { toolCalls: [search('create a new calendar event', 's2')] },
        { text: 'done' },
      ],
      stepSelection: 'assistant-turns',
    });
    const agent = agentOf(model, routing, 10);
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run1 = await start('router', 'Forecast for Lisbon, then convert 10 EUR.');
      await run1.result();
      const history1 = await run1.handle.fetchHistory();
      const batches = of(history1, 'embedBatch');
      expect(batches.map((a) => a.input)).toMatchObject([
        { index: 0, batchSize: 4, modelKey: 'offline/hashed-bow' },
        { index: 1, batchSize: 4, modelKey: 'offline/hashed-bow' },
        { index: 2, batchSize: 4, modelKey: 'offline/hashed-bow' },
      ]);
      // Counts only: the vectors stay in the worker's cache.
      expect(batches.map((a) => a.result)).toEqual([
        { version: 1, texts: 4, embeddedTexts: 4, cacheHits: 0, calls: 1 },
        { version: 1, texts: 4, embeddedTexts: 4, cacheHits: 0, calls: 1 },
        { version: 1, texts: 2, embeddedTexts: 2, cacheHits: 0, calls: 1 },
      ]);
      const ranked = of(history1, 'rankTools').map((a) => (a.result as { stats: unknown }).stats);
      expect(ranked).toEqual([
        { candidates: 10, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 10 },
        { candidates: 10, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 10 },
      ]);
      expect(searchResult(model.requests[1], 's1').tools[0]?.name).toBe('get_weather_forecast');
      expect(searchResult(model.requests[2], 's2').tools.map((t) => t.name)).toContain('create_calendar_event');
      expectNoVectors(history1);
      await recordHistory('routing-embedding-offline', env, run1.id);

      // A second run on the same worker: its warm-up finds every text cached, its search embeds only the query.
      const run2 = await start('router', 'Forecast for Porto.');
      await run2.result();
      const history2 = await run2.handle.fetchHistory();
      expect(of(history2, 'embedBatch').map((a) => a.result)).toEqual([
        { version: 1, texts: 4, embeddedTexts: 0, cacheHits: 4, calls: 0 },
        { version: 1, texts: 4, embeddedTexts: 0, cacheHits: 4, calls: 0 },
        { version: 1, texts: 2, embeddedTexts: 0, cacheHits: 2, calls: 0 },
      ]);
      expect(of(history2, 'rankTools').map((a) => (a.result as { stats: { embeddingCalls: number } }).stats)).toEqual([
        { candidates: 10, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 10 },
        { candidates: 10, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 10 },
      ]);
      expectNoVectors(history2);
    });
  });
});

describe('a run that routes itself with an embedding model string', () => {
  it('routes one run of an agent without routing by its override, embedding through the worker registry', async () => {
    const model = new ScriptedLanguageModel([
      { toolCalls: [search('weather forecast for a city', 's1')] },
      { text: 'ok' },
    ]);
    const agent = new Agent({
      name: 'plain',
      instructions: '',
      model,
      tools: fixtureTools()
        .slice(0, 10)
        .map((spec) => toTool(spec)),
    });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('plain', 'Forecast?', { toolRouting: { embedding: 'offline/hashed-bow', topK: 2 } });
      await run.result();
      expect(model.requests[0]!.toolNames).toEqual(['searchTools', 'callTool']);
      expect(searchResult(model.requests[1], 's1').tools.map((t) => t.name)).toHaveLength(2);
      const history = await run.handle.fetchHistory();
      // The offline model has no batch limit: the default batch of 256 holds the whole pool.
      expect(of(history, 'embedBatch').map((a) => a.result)).toEqual([
        { version: 1, texts: 10, embeddedTexts: 10, cacheHits: 0, calls: 1 },
      ]);
    });
  });
});

describe('embedding routing in a durable run (all-MiniLM-L6-v2 over the OpenAI provider path)', () => {
  let server: EmbeddingServer;
  beforeAll(async () => {
    server = await startEmbeddingServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function requestsDuring(fn: () => Promise<unknown>): Promise<number> {
    const before = (await server.stats()).requests;
    await fn();
    return (await server.stats()).requests - before;
  }

  it('makes one request per batch on the first search, then exactly one per search, in this and later runs', async () => {
    const routing: ToolRoutingConfig = {
      embedding: { model: `openai/${LOCAL_EMBEDDING_MODEL_ID}`, maxBatchSize: 50 },
      topK: 3,
    };
    const model = new ScriptedLanguageModel({
      steps: [
        { toolCalls: [search('Is it going to rain in Lisbon this weekend?', 's1')] },
        {
          toolCalls: [
            {
              toolName: 'callTool',
              input: { name: 'get_weather_forecast', args: { city: 'Lisbon', days: 3 } },
              toolCallId: 'c1',
            },
          ],
        },
        { toolCalls: [search('How many dollars is 10 euros?', 's2')] },
        { text: 'done' },
      ],
      stepSelection: 'assistant-turns',
    });
    const providers = new ProviderRegistry({
      env: { OPENAI_API_KEY: 'not-needed-locally', OPENAI_BASE_URL: server.baseURL },
    });
    await withAgentWorker(
      env,
      [agentOf(model, routing)],
      async ({ start }) => {
        let history1!: History;
        const firstRun = await requestsDuring(async () => {
          const run = await start('router', 'Rain in Lisbon?');
          await run.result();
          history1 = await run.handle.fetchHistory();
        });
        // 136 tools in batches of 50 (3 requests), then the query of each of the two searches.
        expect(firstRun).toBe(3 + 2);
        expect(of(history1, 'embedBatch').map((a) => (a.result as { calls: number }).calls)).toEqual([1, 1, 1]);
        expect(of(history1, 'rankTools').map((a) => (a.result as { stats: unknown }).stats)).toEqual([
          { candidates: 136, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 136 },
          { candidates: 136, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 136 },
        ]);
        const requests = model.requests.filter((r) => r.stepIndex > 0);
        expect(searchResult(requests[0], 's1').tools.map((t) => t.name)).toContain('get_weather_forecast');
        expect(searchResult(requests[2], 's2').tools.map((t) => t.name)).toContain('convert_currency');
        expect(toolResultsSeen(requests[1]).get('c1')).toEqual({
          type: 'json',
          value: { tool: 'get_weather_forecast', args: { city: 'Lisbon', days: 3 } },
        });
        // Rankings only: no vectors, and the search payloads are the bounded results.
        expectNoVectors(history1);
        for (const ranked of of(history1, 'rankTools')) expect(jsonBytes(ranked.result)).toBeLessThan(64 * 1024 + 512);

        // A second run on the same worker: one request per search (its warm-up batches hit the cache).
        const secondRun = await requestsDuring(async () => {
          const run = await start('router', 'Rain in Lisbon?');
          await run.result();
        });
        expect(secondRun).toBe(2);
      },
      { providers },
    );
  });
});
