import { OfflineEmbeddingModel } from './src/models/offline-embedding-model.js';
import { ToolRouter } from './src/routing/tool-router.js';
import { ToolSearchService } from './src/routing/tool-search-service.js';
import { ToolManager } from './src/tool/tool-manager.js';
import { fixtureQueries, fixtureTools, measureRecall, toTool } from './test/fixtures/routing/load-fixture.js';
const tools = new ToolManager(fixtureTools().map((t) => toTool(t)));
const queries = fixtureQueries();

for (const dimensions of [256, 1024, 4096]) {
  const router = new ToolRouter({ tools, config: { embedding: new OfflineEmbeddingModel({ dimensions }) }, service: new ToolSearchService() });
  const r = await measureRecall(router, queries);
  console.log(dimensions, r.recallAt1.toFixed(3), r.recallAt3.toFixed(3));
}
