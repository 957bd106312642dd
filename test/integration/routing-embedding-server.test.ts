// Tool routing over a real embedding model (all-MiniLM-L6-v2 on the CPU) reached through our OpenAI provider
// path: `openai/all-MiniLM-L6-v2` resolved by the ProviderRegistry with OPENAI_BASE_URL pointing at the local
// OpenAI-compatible server. The server counts requests itself, so "one call per warm search" is checked on the wire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { embedTexts } from '../../src/routing/embed-texts.js';
import { createToolRouter } from '../../src/routing/tool-router.js';
import { ToolSearchService } from '../../src/routing/tool-search-service.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import { fixtureTools, toTool } from '../fixtures/routing/load-fixture.js';
import { LOCAL_EMBEDDING_MODEL_ID, startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';

const MODEL = `openai/${LOCAL_EMBEDDING_MODEL_ID}`;
let server: EmbeddingServer;
let providers: ProviderRegistry;

beforeAll(async () => {
  server = await startEmbeddingServer();
  providers = new ProviderRegistry({ env: { OPENAI_API_KEY: 'not-needed-locally', OPENAI_BASE_URL: server.baseURL } });
});

afterAll(async () => {
  await server?.close();
});

/** Requests and inputs the server saw while `fn` ran. */
async function traffic(fn: () => Promise<unknown>): Promise<{ requests: number; inputs: number }> {
  const before = await server.stats();
  await fn();
  const after = await server.stats();
  return { requests: after.requests - before.requests, inputs: after.inputs - before.inputs };
}

describe('routing with a real embedding model over the OpenAI provider path', () => {
  const specs = fixtureTools();

  it('embeds the pool in batches of maxBatchSize, then makes exactly one request (the query) per warm search', async () => {
    const router = createToolRouter({
      tools: new ToolManager(specs.map((spec) => toTool(spec))),
      config: { embedding: { model: MODEL, maxBatchSize: 50 } },
      service: new ToolSearchService({ providers }),
    });
    const plan = await router.embeddingPlan();
    expect(plan).toEqual({
      modelKey: `openai.embedding/${LOCAL_EMBEDDING_MODEL_ID}`,
      batchSize: 50,
      poolSize: 136,
      batches: 3,
    });

    const cold = await traffic(() => router.search({ query: 'Is it going to rain in Lisbon this weekend?' }));
    expect(cold).toEqual({ requests: 4, inputs: 137 });

    let found: string[] = [];
    const warm = await traffic(async () => {
      const { result, ranking } = await router.search({
        query: 'Is it going to rain in Lisbon this weekend?',
        topK: 3,
      });
      found = result.tools.map((t) => t.name);
      expect(ranking.stats).toEqual({ candidates: 136, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 136 });
    });
    expect(warm).toEqual({ requests: 1, inputs: 1 });
    expect(found).toContain('get_weather_forecast');
  });

  it('re-embeds only a tool whose text changed', async () => {
    const service = new ToolSearchService({ providers });
    const tools = new ToolManager(specs.slice(0, 20).map((spec) => toTool(spec)));
    const router = createToolRouter({ tools, config: { embedding: MODEL }, service });
    await router.search({ query: 'warm up' });
    const changed = { ...specs[3]!, description: 'List active tornado and flood warnings for a region.' };
    tools.addStandaloneTool(toTool(changed));
    const after = await traffic(() => router.search({ query: 'tornado warning' }));
    expect(after).toEqual({ requests: 2, inputs: 2 });
    expect((await router.search({ query: 'tornado warning' })).result.tools[0]?.name).toBe(changed.name);
  });

  it('runs the embedBatch step as the activity will: one request per batch, counts only', async () => {
    const router = createToolRouter({
      tools: new ToolManager(specs.slice(0, 30).map((spec) => toTool(spec))),
      config: { embedding: { model: MODEL, maxBatchSize: 16 } },
      service: new ToolSearchService({ providers }),
    });
    const plan = (await router.embeddingPlan())!;
    expect(plan.batches).toBe(2);
    const warmed = await traffic(async () => {
      expect(await router.warmBatch(0, plan.batchSize)).toEqual({
        texts: 16,
        embeddedTexts: 16,
        cacheHits: 0,
        calls: 1,
      });
      expect(await router.warmBatch(1, plan.batchSize)).toEqual({
        texts: 14,
        embeddedTexts: 14,
        cacheHits: 0,
        calls: 1,
      });
    });
    expect(warmed).toEqual({ requests: 2, inputs: 30 });
    expect(await traffic(() => router.search({ query: 'send a text message' }))).toEqual({ requests: 1, inputs: 1 });
  });

  it('the embedding server bounds what it accepts (input count, body, shape) with OpenAI-style errors', async () => {
    const post = async (body: string) => {
      const response = await fetch(`${server.baseURL}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return { status: response.status, body: (await response.json()) as { error?: { message: string } } };
    };
    const tooMany = await post(JSON.stringify({ model: 'm', input: Array.from({ length: 2049 }, () => 'x') }));
    expect(tooMany).toEqual({
      status: 400,
      body: { error: expect.objectContaining({ message: "'input' has 2049 items; at most 2048 per request" }) },
    });
    expect((await post('{"input": [1, 2]}')).body.error?.message).toBe(
      "'input' must be a non-empty string or a non-empty array of strings",
    );
    expect((await post('not json')).status).toBe(400);
    expect((await post(JSON.stringify({ input: 'x'.repeat(100_001) }))).status).toBe(400);
  });

  it("a provider error reaches the caller of embedTexts (nothing is retried behind Temporal's back)", async () => {
    const model = new ProviderRegistry({
      env: { OPENAI_API_KEY: 'x', OPENAI_BASE_URL: `${server.baseURL.replace(/\/v1$/, '')}/not-v1` },
    }).resolveEmbeddingModel(MODEL);
    const before = await server.stats();
    await expect(embedTexts(model, ['hello'], { batchSize: 10 })).rejects.toThrow(/Unknown path/);
    expect((await server.stats()).requests).toBe(before.requests);
  });
});
