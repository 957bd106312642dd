import { embedMany } from 'ai';
import { ProviderRegistry } from './src/models/provider-registry.js';
import { startEmbeddingServer } from './test/support/embedding-server.js';
const server = await startEmbeddingServer();
const model = new ProviderRegistry({ env: { OPENAI_API_KEY: 'local', OPENAI_BASE_URL: server.baseURL } }).resolveEmbeddingModel('openai/all-MiniLM-L6-v2');
const times: number[] = [];
for (let i = 0; i < 20; i++) { const t = performance.now(); await embedMany({ model, values: [`query number ${i}`], maxRetries: 0 }); times.push(performance.now() - t); }
times.sort((a, b) => a - b); console.log('median ms', times[10]!.toFixed(1), 'min', times[0]!.toFixed(1));
await server.close();
