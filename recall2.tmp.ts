import { ProviderRegistry } from './src/models/provider-registry.js';
import { ToolRouter } from './src/routing/tool-router.js';
import { ToolSearchService } from './src/routing/tool-search-service.js';
import { describeParameters, splitName } from './src/routing/tool-text.js';
import { ToolManager } from './src/tool/tool-manager.js';
import type { ToolSearchCandidate } from './src/routing/types.js';
import { fixtureQueries, fixtureTools, measureRecall, toTool } from './test/fixtures/routing/load-fixture.js';
import { startEmbeddingServer } from './test/support/embedding-server.js';
const tools = new ToolManager(fixtureTools().map((t) => toTool(t)));
const queries = fixtureQueries();
const server = await startEmbeddingServer({ threads: 2 });
const service = new ToolSearchService({ providers: new ProviderRegistry({ env: { OPENAI_API_KEY: 'local', OPENAI_BASE_URL: server.baseURL } }) });
const variants: Record<string, (c: ToolSearchCandidate) => string> = {
  desc: (c) => c.description,
  nameDesc: (c) => `${splitName(c.name)}: ${c.description}`,
  nameDescTags: (c) => `${splitName(c.name)}: ${c.description} (${c.tags.join(', ')})`,
  nameDescParams: (c) => `${splitName(c.name)}: ${c.description} Parameters: ${describeParameters(c.parametersSchema)}`,
  voltagent: (c) => `Tool: ${c.name}\nDescription: ${c.description}\nTags: ${c.tags.join(', ')}\nParameters: ${JSON.stringify(c.parametersSchema)}`,
};
for (const [label, toolText] of Object.entries(variants)) {
  const router = new ToolRouter({ tools, config: { embedding: { model: 'openai/all-MiniLM-L6-v2', toolText } }, service });
  const r = await measureRecall(router, queries);
  console.log(label, r.recallAt1.toFixed(3), r.recallAt3.toFixed(3));
}
await server.close();
