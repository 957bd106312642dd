// durable-agent's worker for bench/streaming.ts, started as a child process like @temporalio/ai-sdk's
// (../temporal-ai-sdk/worker.mjs), so each runtime's worker CPU is its own process's, read the same way
// (../worker-stats.mjs). Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, BENCH_WRITERS (JSON array of
// WriterSpec). Prints one JSON line `{"ready":true}` on stdout once it polls; answers stats requests on stdin;
// stops on SIGTERM or when stdin closes.
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { createAgentWorker } from '../../src/worker/create-agent-worker.js';
import { instrumentWorkerThreads, serveStats } from '../worker-stats.mjs';
import { writerAgent, type WriterSpec } from './writer.js';

instrumentWorkerThreads();
Runtime.install({ logger: new DefaultLogger('WARN') });
const writers = JSON.parse(process.env.BENCH_WRITERS ?? '[]') as WriterSpec[];
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
const worker = await createAgentWorker({
  agents: writers.map(writerAgent),
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: process.env.TASK_QUEUE ?? 'bench-streaming',
  // No model keys: the agents carry their scripted models.
  providers: new ProviderRegistry({ env: {} }),
});
// The parent going away closes our stdin: stop then too, so no worker is left behind.
serveStats(() => worker.shutdown());
const running = worker.run();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await running;
await connection.close();
process.exit(0);
