// Tool-search cost over a 1,000-tool pool, measured the way the `rankTools` and `embedBatch` activities will run
// it (ToolRouter.rank / warmBatch on a per-worker ToolSearchService), for these rankings:
//   lexical (BM25+); the offline hashed bag-of-words embedder, hybrid (the default with an embedding model) and by
//   cosine alone over the same cache (the difference is what fusion costs); a real model (all-MiniLM-L6-v2 on the
//   CPU behind the OpenAI-compatible server of test/support, reached through `openai/...` + OPENAI_BASE_URL),
//   hybrid and then by cosine alone (`lexicalWeight: 0`) over the same cache.
// Reports cold cost (first search: index build or embedding the pool, with the calls it took), the warm median of
// the rank step, and embedding calls per warm search (counted by our strategy and, for the real model, by the
// server itself: both must be exactly 1, the query). Not a test; run it with `npx tsx bench/routing.ts`
// (ROUTING_BENCH_QUERIES=n for more or fewer timed searches). End to end in a durable run: bench/routing-durable.ts.
import { cpus, loadavg } from 'node:os';
import { OfflineEmbeddingModel } from '../src/models/offline-embedding-model.js';
import { ProviderRegistry } from '../src/models/provider-registry.js';
import { createToolRouter, type ToolRouter } from '../src/routing/tool-router.js';
import { ToolSearchService } from '../src/routing/tool-search-service.js';
import type { ToolRoutingConfig } from '../src/routing/types.js';
import { fixtureQueries } from '../test/fixtures/routing/load-fixture.js';
import { LOCAL_EMBEDDING_MODEL_ID, startEmbeddingServer } from '../test/support/embedding-server.js';
import { POOL_SIZE, thousandTools } from './routing-pool.js';
import { median, quantile, round } from './stats.js';

const TIMED_SEARCHES = Number(process.env.ROUTING_BENCH_QUERIES ?? 60);

interface Row {
  ranking: string;
  coldMs: number;
  coldEmbeddingCalls: number;
  warmMedianMs: number;
  warmP90Ms: number;
  callsPerWarmSearch: number;
  serverRequestsPerWarmSearch?: number;
  cacheMiB?: number;
}

async function measure(
  label: string,
  router: ToolRouter,
  serverRequests?: () => Promise<number>,
  cacheBytes?: () => number,
): Promise<Row> {
  const queries = fixtureQueries().map((q) => q.query);
  const coldStart = performance.now();
  const cold = await router.rank(queries[0]!, 3);
  const coldMs = performance.now() - coldStart;

  const times: number[] = [];
  let calls = 0;
  const requestsBefore = serverRequests ? await serverRequests() : 0;
  for (let i = 0; i < TIMED_SEARCHES; i++) {
    const query = queries[(i + 1) % queries.length]!;
    const start = performance.now();
    const ranking = await router.rank(query, 3);
    times.push(performance.now() - start);
    calls += ranking.stats.embeddingCalls;
    if (ranking.stats.candidates !== POOL_SIZE) throw new Error(`ranked ${ranking.stats.candidates} tools`);
  }
  const requests = serverRequests ? (await serverRequests()) - requestsBefore : undefined;
  const row: Row = {
    ranking: label,
    coldMs: round(coldMs, 1),
    coldEmbeddingCalls: cold.stats.embeddingCalls,
    warmMedianMs: round(median(times), 2),
    warmP90Ms: round(quantile(times, 0.9), 2),
    callsPerWarmSearch: calls / TIMED_SEARCHES,
  };
  if (requests !== undefined) row.serverRequestsPerWarmSearch = requests / TIMED_SEARCHES;
  if (cacheBytes) row.cacheMiB = round(cacheBytes() / (1024 * 1024), 2);
  return row;
}

async function main(): Promise<void> {
  const tools = thousandTools();
  const server = await startEmbeddingServer({ threads: 1 });
  try {
    const rows: Row[] = [];
    const newService = () =>
      new ToolSearchService({
        providers: new ProviderRegistry({
          env: { OPENAI_API_KEY: 'not-needed-locally', OPENAI_BASE_URL: server.baseURL },
        }),
      });
    const run = async (label: string, config: ToolRoutingConfig, withServer = false, service = newService()) => {
      const router = createToolRouter({ tools, config, service });
      const row = await measure(
        label,
        router,
        withServer ? async () => (await server.stats()).requests : undefined,
        config.embedding ? () => service.cache.stats().bytes : undefined,
      );
      rows.push(row);
      console.error(`routing bench: ${label} done`);
    };
    await run('lexical (BM25+, MiniSearch)', {});
    // The offline embedder costs microseconds per query, so its two rows show what the fusion itself adds.
    const offline = newService();
    const offlineModel = new OfflineEmbeddingModel();
    await run('offline/hashed-bow (hybrid)', { embedding: offlineModel }, false, offline);
    await run(
      'offline/hashed-bow (cosine alone)',
      { embedding: { model: offlineModel, lexicalWeight: 0 } },
      false,
      offline,
    );
    // One service for both real-model rows: the second reuses the first's tool vectors (its cold search embeds
    // only the query), so the pool is embedded once.
    const realModel = newService();
    const model = `openai/${LOCAL_EMBEDDING_MODEL_ID}`;
    await run(`${model} via OPENAI_BASE_URL (hybrid)`, { embedding: model }, true, realModel);
    await run(
      `${model} (cosine alone, vectors cached above)`,
      { embedding: { model, lexicalWeight: 0 } },
      true,
      realModel,
    );

    const header =
      '| ranking | cold search (ms) | cold embedding calls | warm rank median (ms) | warm p90 (ms) | embedding calls / warm search | server requests / warm search | cache (MiB) |';
    const lines = rows.map(
      (r) =>
        `| ${r.ranking} | ${r.coldMs} | ${r.coldEmbeddingCalls} | ${r.warmMedianMs} | ${r.warmP90Ms} | ${r.callsPerWarmSearch} | ${r.serverRequestsPerWarmSearch ?? '–'} | ${r.cacheMiB ?? '–'} |`,
    );
    console.log(
      [
        `Tool search over a ${POOL_SIZE}-tool pool, ${TIMED_SEARCHES} warm searches each (top 3).`,
        `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}; Node ${process.version}.`,
        '',
        header,
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        ...lines,
      ].join('\n'),
    );
    for (const row of rows) {
      if (row.ranking !== 'lexical (BM25+, MiniSearch)' && row.callsPerWarmSearch !== 1) {
        throw new Error(`${row.ranking}: ${row.callsPerWarmSearch} embedding calls per warm search, expected 1`);
      }
      if (row.serverRequestsPerWarmSearch !== undefined && row.serverRequestsPerWarmSearch !== 1) {
        throw new Error(`${row.ranking}: the server saw ${row.serverRequestsPerWarmSearch} requests per warm search`);
      }
    }
  } finally {
    await server.close();
  }
}

await main();
