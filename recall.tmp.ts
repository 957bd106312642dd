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
for (const [label, embedding] of [['lexical', undefined], ['offline', 'offline/hashed-bow'], ['minilm', 'openai/all-MiniLM-L6-v2']] as const) {
  const router = new ToolRouter({ tools, config: embedding ? { embedding } : {}, service });
  const t = performance.now();
  const r = await measureRecall(router, queries);
  console.log(label, r.recallAt1.toFixed(3), r.recallAt3.toFixed(3), Math.round(performance.now() - t), 'ms');
  if (process.env.MISSES) for (const m of r.missesAt3) console.log('   ', m.query, '|', m.relevant.join(','), '=>', m.got.join(','));
}
await server.close();
