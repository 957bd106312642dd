import { ProviderRegistry } from './src/models/provider-registry.js';
import { ToolRouter } from './src/routing/tool-router.js';
import { ToolSearchService } from './src/routing/tool-search-service.js';
import { splitName, describeParameters } from './src/routing/tool-text.js';
import { ToolManager } from './src/tool/tool-manager.js';
import { fixtureQueries, fixtureTools, toTool } from './test/fixtures/routing/load-fixture.js';
import { startEmbeddingServer } from './test/support/embedding-server.js';
import type { ToolSearchCandidate } from './src/routing/types.js';
const tools = new ToolManager(fixtureTools().map((t) => toTool(t)));
const queries = fixtureQueries();
const server = await startEmbeddingServer({ threads: 2 });
const service = new ToolSearchService({ providers: new ProviderRegistry({ env: { OPENAI_API_KEY: 'local', OPENAI_BASE_URL: server.baseURL } }) });
const texts: Record<string, (c: ToolSearchCandidate) => string> = {
  desc: (c) => c.description,
  nameDesc: (c) => `${splitName(c.name)}: ${c.description}`,
  nameDescParams: (c) => `${splitName(c.name)}: ${c.description} Parameters: ${describeParameters(c.parametersSchema)}`,
};
const lex = new ToolRouter({ tools, config: {}, service });
const lexRanks = new Map<string, Map<string, number>>();
const lexScores = new Map<string, Map<string, number>>();
for (const q of queries) {
  const r = await lex.rank(q.query, 20);
  lexRanks.set(q.query, new Map(r.selections.map((s, i) => [s.name, i])));
  lexScores.set(q.query, new Map(r.selections.map((s) => [s.name, s.score!])));
}
for (const [label, toolText] of Object.entries(texts)) {
  const emb = new ToolRouter({ tools, config: { embedding: { model: 'openai/all-MiniLM-L6-v2', toolText, minScore: -1 } }, service });
  const embScores = new Map<string, Map<string, number>>();
  for (const q of queries) {
    const r = await emb.rank(q.query, 20);
    embScores.set(q.query, new Map(r.selections.map((s) => [s.name, s.score!])));
  }
  for (const w of [0, 0.05, 0.1, 0.15, 0.2, 0.3]) {
    let h1 = 0, h3 = 0;
    for (const q of queries) {
      const e = embScores.get(q.query)!; const l = lexScores.get(q.query)!;
      const maxL = Math.max(0, ...l.values()) || 1;
      const names = new Set([...e.keys(), ...l.keys()]);
      const ranked = [...names].map((n) => [n, (e.get(n) ?? 0) + w * ((l.get(n) ?? 0) / maxL)] as const).sort((a, b) => b[1] - a[1]).map((x) => x[0]);
      if (q.relevant.includes(ranked[0]!)) h1++;
      if (ranked.slice(0, 3).some((n) => q.relevant.includes(n))) h3++;
    }
    console.log(label, 'w', w, (h1 / queries.length).toFixed(3), (h3 / queries.length).toFixed(3));
  }
  // RRF
  let h1 = 0, h3 = 0;
  for (const q of queries) {
    const e = [...embScores.get(q.query)!.entries()].sort((a, b) => b[1] - a[1]).map((x) => x[0]);
    const lr = lexRanks.get(q.query)!;
    const score = new Map<string, number>();
    e.forEach((n, i) => score.set(n, 1 / (60 + i)));
    for (const [n, i] of lr) score.set(n, (score.get(n) ?? 0) + 1 / (60 + i));
    const ranked = [...score.entries()].sort((a, b) => b[1] - a[1]).map((x) => x[0]);
    if (q.relevant.includes(ranked[0]!)) h1++;
    if (ranked.slice(0, 3).some((n) => q.relevant.includes(n))) h3++;
  }
  console.log(label, 'rrf', (h1 / queries.length).toFixed(3), (h3 / queries.length).toFixed(3));
}
await server.close();
