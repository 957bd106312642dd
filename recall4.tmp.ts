import { ProviderRegistry } from './src/models/provider-registry.js';
import { ToolRouter } from './src/routing/tool-router.js';
import { ToolSearchService } from './src/routing/tool-search-service.js';
import { ToolManager } from './src/tool/tool-manager.js';
import { fixtureQueries, fixtureTools, measureRecall, toTool } from './test/fixtures/routing/load-fixture.js';
import { startEmbeddingServer } from './test/support/embedding-server.js';
const tools = new ToolManager(fixtureTools().map((t) => toTool(t)));
const queries = fixtureQueries();
const server = await startEmbeddingServer({ threads: 2 });
const service = new ToolSearchService({ providers: new ProviderRegistry({ env: { OPENAI_API_KEY: 'local', OPENAI_BASE_URL: server.baseURL } }) });
for (const model of ['openai/all-MiniLM-L6-v2', 'offline/hashed-bow']) {
const router = new ToolRouter({ tools, config: { embedding: model }, service });
const r = await measureRecall(router, queries);
console.log(model, r.recallAt1.toFixed(3), r.recallAt3.toFixed(3));
const tops: number[] = [];
for (const q of queries) tops.push((await router.rank(q.query, 1)).selections[0]?.score ?? 0);
tops.sort((a, b) => a - b);
console.log('labelled top1 min/p10/median', tops[0]?.toFixed(3), tops[Math.floor(tops.length * 0.1)]?.toFixed(3), tops[Math.floor(tops.length / 2)]?.toFixed(3));
for (const q of ['bake a loaf of sourdough bread', 'what is the meaning of life', 'asdfgh qwerty', 'tell me a joke about penguins', 'who won the 1998 world cup final', 'write a haiku about autumn', 'feed my goldfish']) {
  const s = (await router.rank(q, 1)).selections[0];
  console.log('  unrelated', q, '=>', s?.name, s?.score?.toFixed(3));
}
}
await server.close();
