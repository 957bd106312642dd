// The floor's worker, started by bench/run.ts as a child process like the other runtimes' workers: a plain
// Temporal worker with the same settings durable-agent's worker runs with (AGENT_WORKER_DEFAULTS, default cache)
// and nothing else. Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, BENCH_MAX_CACHED_WORKFLOWS (optional).
// Prints `{"ready":true}` once it polls; answers stats requests on stdin (worker-stats.mjs); stops when stdin closes.
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { AGENT_WORKER_DEFAULTS } from '../../src/worker/plugin.js';
import { instrumentWorkerThreads, serveStats } from '../worker-stats.mjs';
import * as activities from './activities.js';

instrumentWorkerThreads();
Runtime.install({ logger: new DefaultLogger('WARN') });
const maxCachedWorkflows = process.env.BENCH_MAX_CACHED_WORKFLOWS;
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
const worker = await Worker.create({
  ...AGENT_WORKER_DEFAULTS,
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: process.env.TASK_QUEUE ?? 'bench-floor',
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  activities,
  ...(maxCachedWorkflows ? { maxCachedWorkflows: Number(maxCachedWorkflows) } : {}),
});
serveStats(() => worker.shutdown());
const running = worker.run();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await running;
await connection.close();
process.exit(0);
