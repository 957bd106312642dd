// Routing quality on the labelled set in test/fixtures/routing (136 tools across ~30 domains with near-duplicates,
// 89 paraphrased requests): recall@1 and recall@3 of the lexical ranking (BM25+), of the offline hashed
// bag-of-words embedder, and of a real embedding model (all-MiniLM-L6-v2, int8 ONNX on the CPU) reached through
// the OpenAI provider path. The numbers are printed; the floors sit about three queries below what was measured,
// so a broken ranking (tool text, cosine, cache mix-ups) fails while one borderline query flipping does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { createToolRouter } from '../../src/routing/tool-router.js';
import { ToolSearchService } from '../../src/routing/tool-search-service.js';
import type { ToolRoutingConfig } from '../../src/routing/types.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import {
  fixtureQueries,
  fixtureTools,
  fixtureUnrelatedQueries,
  measureRecall,
  toTool,
  type RecallReport,
} from '../fixtures/routing/load-fixture.js';
import { LOCAL_EMBEDDING_MODEL_ID, startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';

let server: EmbeddingServer;
let service: ToolSearchService;
const tools = new ToolManager(fixtureTools().map((spec) => toTool(spec)));
const queries = fixtureQueries();
const reports: Record<string, RecallReport> = {};

beforeAll(async () => {
  server = await startEmbeddingServer();
  service = new ToolSearchService({
    providers: new ProviderRegistry({ env: { OPENAI_API_KEY: 'not-needed-locally', OPENAI_BASE_URL: server.baseURL } }),
  });
});

afterAll(async () => {
  await server?.close();
  const lines = Object.entries(reports).map(
    ([label, r]) =>
      `${label.padEnd(34)} recall@1 ${r.recallAt1.toFixed(3)}  recall@3 ${r.recallAt3.toFixed(3)}  (${r.queries} queries)`,
  );
  console.log(`Tool routing quality, ${tools.getAllToolNames().length} tools:\n${lines.join('\n')}`);
});

async function measure(label: string, config: ToolRoutingConfig): Promise<RecallReport> {
  const report = await measureRecall(createToolRouter({ tools, config, service }), queries);
  reports[label] = report;
  return report;
}

describe('routing quality on the labelled set', () => {
  it('has at least 100 tools and 50 labelled queries, every label a real tool', () => {
    expect(tools.getAllToolNames().length).toBeGreaterThanOrEqual(100);
    expect(queries.length).toBeGreaterThanOrEqual(50);
    for (const query of queries) for (const name of query.relevant) expect(tools.getToolByName(name)).toBeDefined();
  });

  it('lexical ranking (BM25+): measured recall@1 0.404, recall@3 0.573', async () => {
    const report = await measure('lexical (BM25+)', {});
    expect(report.recallAt1).toBeGreaterThanOrEqual(0.37);
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.54);
  });

  it('offline hashed bag-of-words embedder (no synonyms, reported only): measured recall@3 0.348', async () => {
    const report = await measure('offline/hashed-bow (cosine)', { embedding: 'offline/hashed-bow' });
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.3);
  });

  it('real model all-MiniLM-L6-v2 through openai/… and OPENAI_BASE_URL: measured recall@1 0.674, recall@3 0.809', async () => {
    const report = await measure(`openai/${LOCAL_EMBEDDING_MODEL_ID} (cosine)`, {
      embedding: `openai/${LOCAL_EMBEDDING_MODEL_ID}`,
    });
    expect(report.recallAt1).toBeGreaterThanOrEqual(0.63);
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.77);
    // The point of embeddings: paraphrases that share no word with the tool still find it.
    expect(report.recallAt3 - reports['lexical (BM25+)']!.recallAt3).toBeGreaterThanOrEqual(0.2);
  });

  it('with minScore 0.22 the real model says "no match" to unrelated requests and keeps its recall', async () => {
    const config: ToolRoutingConfig = { embedding: { model: `openai/${LOCAL_EMBEDDING_MODEL_ID}`, minScore: 0.22 } };
    const router = createToolRouter({ tools, config, service });
    const unrelated = fixtureUnrelatedQueries();
    let noMatch = 0;
    for (const query of unrelated) if ((await router.search({ query })).result.tools.length === 0) noMatch += 1;
    console.log(`minScore 0.22: ${noMatch}/${unrelated.length} unrelated requests answered "no match"`);
    expect(noMatch).toBeGreaterThanOrEqual(Math.ceil(unrelated.length * 0.75));
    const report = await measure(`openai/${LOCAL_EMBEDDING_MODEL_ID} minScore 0.22`, config);
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.75);
  });
});
