// durable-agent's worker for the bench, started by bench/run.ts as a child process, like the other runtimes'
// workers, so each runtime runs its worker in a process of its own and the bench process only drives clients.
// Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, BENCH_SPECS (JSON array of workload specs),
// BENCH_MAX_CACHED_WORKFLOWS (optional). Prints one JSON line `{"ready":true}` on stdout once it polls; answers
// stats requests on stdin (worker-stats.mjs); stops on SIGTERM or when stdin closes.
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { ProviderRegistry } from '../src/models/provider-registry.js';
import { createAgentWorker } from '../src/worker/create-agent-worker.js';
import { instrumentWorkerThreads, serveStats } from './worker-stats.mjs';
import { agentName, benchAgent, type WorkloadSpec } from './workload.js';

instrumentWorkerThreads();
Runtime.install({ logger: new DefaultLogger('WARN') });
const specs = JSON.parse(process.env.BENCH_SPECS ?? '[]') as WorkloadSpec[];
const maxCachedWorkflows = process.env.BENCH_MAX_CACHED_WORKFLOWS;
// One agent per distinct spec (sections may share one).
const agents = new Map(specs.map((spec) => [agentName(spec), spec]));
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
const worker = await createAgentWorker({
  agents: [...agents.values()].map(benchAgent),
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: process.env.TASK_QUEUE ?? 'bench-durable-agent',
  // No model keys: the agents carry their scripted models.
  providers: new ProviderRegistry({ env: {} }),
  ...(maxCachedWorkflows ? { worker: { maxCachedWorkflows: Number(maxCachedWorkflows) } } : {}),
});
// The parent going away closes our stdin: stop then too, so no worker is left behind.
serveStats(() => worker.shutdown());
const running = worker.run();
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await running;
await connection.close();
process.exit(0);
