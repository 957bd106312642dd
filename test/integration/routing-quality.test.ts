// Routing quality on the labelled set in test/fixtures/routing (136 tools across ~30 domains with near-duplicates,
// 89 paraphrased requests): recall@1 and recall@3 of the lexical ranking (BM25+), of the offline hashed
// bag-of-words embedder, and of a real embedding model (all-MiniLM-L6-v2, int8 ONNX on the CPU) reached through
// the OpenAI provider path, by cosine alone and by the default hybrid ranking (cosine fused with BM25+).
//
// The queries are split in queries.json, fixed before any tuning: even positions are the tuning half (45), odd
// positions the held-out half (44). Ranking choices (the hybrid's lexical weight, the tool text) were made on the
// tuning half; the floors below come from the held-out half, about two queries under what was measured there, so a
// broken ranking (tool text, fusion, cosine, cache mix-ups) fails while one borderline query flipping does not.
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
  type Recall,
  type RecallReport,
} from '../fixtures/routing/load-fixture.js';
import { LOCAL_EMBEDDING_MODEL_ID, startEmbeddingServer, type EmbeddingServer } from '../support/embedding-server.js';

let server: EmbeddingServer;
let service: ToolSearchService;
const tools = new ToolManager(fixtureTools().map((spec) => toTool(spec)));
const queries = fixtureQueries();
const reports: Record<string, RecallReport> = {};
const MODEL = `openai/${LOCAL_EMBEDDING_MODEL_ID}`;

beforeAll(async () => {
  server = await startEmbeddingServer();
  service = new ToolSearchService({
    providers: new ProviderRegistry({ env: { OPENAI_API_KEY: 'not-needed-locally', OPENAI_BASE_URL: server.baseURL } }),
  });
});

afterAll(async () => {
  await server?.close();
  const cell = (r: Recall) => `${r.recallAt1.toFixed(3)} / ${r.recallAt3.toFixed(3)}`;
  const lines = Object.entries(reports).map(
    ([label, r]) => `${label.padEnd(44)} ${cell(r.tune).padEnd(16)} ${cell(r.holdout).padEnd(16)} ${cell(r)}`,
  );
  const head = `${'recall@1 / recall@3'.padEnd(44)} ${'tuning (45)'.padEnd(16)} ${'held out (44)'.padEnd(16)} all (89)`;
  console.log(`Tool routing quality, ${tools.getAllToolNames().length} tools:\n${head}\n${lines.join('\n')}`);
});

async function measure(label: string, config: ToolRoutingConfig): Promise<RecallReport> {
  const report = await measureRecall(createToolRouter({ tools, config, service }), queries);
  reports[label] = report;
  return report;
}

describe('routing quality on the labelled set', () => {
  it('has at least 100 tools and 50 labelled queries, every label a real tool, split in two fixed halves', () => {
    expect(tools.getAllToolNames().length).toBeGreaterThanOrEqual(100);
    expect(queries.length).toBeGreaterThanOrEqual(50);
    for (const query of queries) for (const name of query.relevant) expect(tools.getToolByName(name)).toBeDefined();
    // The split is part of the fixture: even positions tune, odd positions are held out.
    queries.forEach((query, i) => expect(query.split).toBe(i % 2 === 0 ? 'tune' : 'holdout'));
  });

  it('lexical ranking (BM25+): measured held out 0.477 / 0.614, all 0.404 / 0.573', async () => {
    const report = await measure('lexical (BM25+)', {});
    expect(report.holdout.recallAt1).toBeGreaterThanOrEqual(0.43);
    expect(report.holdout.recallAt3).toBeGreaterThanOrEqual(0.57);
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.54);
  });

  it('offline hashed bag-of-words embedder, cosine alone (no synonyms, reported only): measured all recall@3 0.348', async () => {
    const report = await measure('offline/hashed-bow (cosine)', {
      embedding: { model: 'offline/hashed-bow', lexicalWeight: 0 },
    });
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.3);
  });

  it('all-MiniLM-L6-v2 by cosine alone (lexicalWeight 0): measured held out 0.727 / 0.864, all 0.674 / 0.809', async () => {
    const report = await measure(`${LOCAL_EMBEDDING_MODEL_ID} cosine alone`, {
      embedding: { model: MODEL, lexicalWeight: 0 },
    });
    expect(report.holdout.recallAt1).toBeGreaterThanOrEqual(0.68);
    expect(report.holdout.recallAt3).toBeGreaterThanOrEqual(0.81);
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.77);
    // The point of embeddings: paraphrases that share no word with the tool still find it.
    expect(report.recallAt3 - reports['lexical (BM25+)']!.recallAt3).toBeGreaterThanOrEqual(0.2);
  });

  it('all-MiniLM-L6-v2 hybrid, the default (cosine fused with BM25+): measured held out 0.773 / 0.886, all 0.742 / 0.865', async () => {
    const report = await measure(`${LOCAL_EMBEDDING_MODEL_ID} hybrid (default)`, { embedding: MODEL });
    expect(report.holdout.recallAt1).toBeGreaterThanOrEqual(0.72);
    expect(report.holdout.recallAt3).toBeGreaterThanOrEqual(0.84);
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.83);
    // Fusion must earn its place on queries it was not tuned on, not only overall.
    const cosine = reports[`${LOCAL_EMBEDDING_MODEL_ID} cosine alone`]!;
    expect(report.holdout.recallAt3).toBeGreaterThanOrEqual(cosine.holdout.recallAt3);
    expect(report.holdout.recallAt1).toBeGreaterThanOrEqual(cosine.holdout.recallAt1);
    expect(report.recallAt3 - cosine.recallAt3).toBeGreaterThanOrEqual(0.03);
  });

  it('with minScore 0.22 the hybrid ranking says "no match" to unrelated requests: measured 8/8, held out 0.773 / 0.864', async () => {
    const config: ToolRoutingConfig = { embedding: { model: MODEL, minScore: 0.22 } };
    const router = createToolRouter({ tools, config, service });
    const unrelated = fixtureUnrelatedQueries();
    let noMatch = 0;
    for (const query of unrelated) if ((await router.search({ query })).result.tools.length === 0) noMatch += 1;
    console.log(`minScore 0.22 (hybrid): ${noMatch}/${unrelated.length} unrelated requests answered "no match"`);
    expect(noMatch).toBeGreaterThanOrEqual(Math.ceil(unrelated.length * 0.75));
    const report = await measure(`${LOCAL_EMBEDDING_MODEL_ID} hybrid, minScore 0.22`, config);
    expect(report.holdout.recallAt3).toBeGreaterThanOrEqual(0.82);
    expect(report.recallAt3).toBeGreaterThanOrEqual(0.77);
  });
});
