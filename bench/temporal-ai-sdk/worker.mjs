// A worker for Temporal's @temporalio/ai-sdk, started by bench/run.ts and bench/streaming.ts as a child process from
// this folder so it loads this folder's own @temporalio/* 1.23 packages. Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TASK_QUEUE, BENCH_MAX_CACHED_WORKFLOWS (optional). Prints one JSON line `{"ready":true}` on stdout once it polls;
// answers stats requests on stdin (../worker-stats.mjs); stops on SIGTERM or when stdin closes.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { lookupOutput } from '../lookup-output.mjs';
import { instrumentWorkerThreads, serveStats } from '../worker-stats.mjs';
import { scriptedProvider } from './scripted-model.mjs';

instrumentWorkerThreads();
Runtime.install({ logger: new DefaultLogger('WARN') });
const maxCachedWorkflows = process.env.BENCH_MAX_CACHED_WORKFLOWS;
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: process.env.TASK_QUEUE ?? 'bench-temporal-ai-sdk',
  workflowsPath: fileURLToPath(new URL('./workflows.mjs', import.meta.url)),
  activities: { lookup: async (input) => lookupOutput(input) },
  plugins: [new AiSdkPlugin({ modelProvider: scriptedProvider })],
  ...(maxCachedWorkflows ? { maxCachedWorkflows: Number(maxCachedWorkflows) } : {}),
});
// The parent going away closes our stdin: stop then too, so no worker is left behind.
serveStats(() => worker.shutdown());
const running = worker.run();
process.stdout.write(`${JSON.stringify({ ready: true, versions: versions() })}\n`);
await running;
await connection.close();
process.exit(0);

/** The versions actually loaded, for the report. */
function versions() {
  const names = ['@temporalio/ai-sdk', '@temporalio/worker', '@temporalio/workflow-streams', 'ai'];
  return Object.fromEntries(
    names.map((name) => {
      const manifest = new URL(`./node_modules/${name}/package.json`, import.meta.url);
      return [name, JSON.parse(readFileSync(manifest, 'utf8')).version];
    }),
  );
}
