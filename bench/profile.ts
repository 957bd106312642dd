// `npx tsx bench/profile.ts [durableAgent|floor] [runs] [toolSteps]`: CPU profiles of a bench worker (every thread:
// the main thread runs activities and payload conversion, a worker thread runs the workflow sandbox) over `runs`
// sequential runs after a warm-up, and a summary of where the time went per step. Profiles are written to
// `$TMPDIR/durable-agent-profile-*/` for Chrome DevTools.
import { mkdtempSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/worker/dev-server.js';
import { startChildWorker } from './child-worker.js';
import { summarize, type CpuProfile, type ProfileEntry } from './cpu-profile.js';
import { durableAgentRuntime, floorRuntime } from './runtimes.js';
import { modelSteps } from './workload.js';

const [kind = 'durableAgent', runsArg = '30', stepsArg = '20', local] = process.argv.slice(2);
if (kind !== 'durableAgent' && kind !== 'floor') throw new Error('Profile durableAgent or floor.');
const runs = Number(runsArg);
const spec = { toolSteps: Number(stepsArg), bytes: 64, ...(local === 'local' ? { localTool: true } : {}) };
const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));

const server = await startDevServer();
const taskQueue = `profile-${randomUUID()}`;
const worker = await startChildWorker({
  name: kind,
  args: ['--import', 'tsx', kind === 'floor' ? `${BENCH_DIR}floor/worker.ts` : `${BENCH_DIR}durable-agent-worker.ts`],
  cwd: ROOT_DIR,
  env: {
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_NAMESPACE: server.namespace,
    TASK_QUEUE: taskQueue,
    BENCH_SPECS: JSON.stringify([spec]),
  },
});
try {
  const connection = await Connection.connect({ address: server.address });
  const temporal = new Client({ connection, namespace: server.namespace });
  const options = { localTool: spec.localTool === true };
  const runtime =
    kind === 'floor'
      ? floorRuntime(temporal, taskQueue, worker, options)
      : durableAgentRuntime(temporal, taskQueue, worker, options);
  for (let i = 0; i < 5; i++) await runtime.run(spec);
  const steps = runs * modelSteps(spec);
  // First without the profiler (its sampling costs CPU of its own), then with it.
  const before = await worker.stats();
  let startedAt = performance.now();
  for (let i = 0; i < runs; i++) await runtime.run(spec);
  const wallMs = performance.now() - startedAt;
  const after = await worker.stats();
  const cpu = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-profile-'));
  await worker.startProfiles();
  startedAt = performance.now();
  for (let i = 0; i < runs; i++) await runtime.run(spec);
  const files = await worker.stopProfiles(dir);
  process.stdout.write(
    `${kind}${options.localTool ? ' (local tool)' : ''}: ${runs} runs × ${modelSteps(spec)} steps, ` +
      `${(wallMs / steps).toFixed(2)} ms/step wall, ${(cpu / steps).toFixed(2)} ms/step process CPU, ` +
      `${((after.threadPromises - before.threadPromises) / steps).toFixed(1)} workflow-thread promises/step ` +
      `(without the profiler); profiles in ${dir}\n`,
  );
  for (const file of files) {
    const summary = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
    const perStep = (e: ProfileEntry) =>
      `${(e.selfMs / steps).toFixed(3).padStart(7)} ${(e.totalMs / steps).toFixed(3).padStart(7)}  ${e.name}`;
    process.stdout.write(
      `\n== ${file.split('/').pop()}: busy ${(summary.busyMs / steps).toFixed(2)} ms/step (self, total ms/step)\n` +
        `-- groups\n${summary.groups.slice(0, 25).map(perStep).join('\n')}\n` +
        `-- functions\n${summary.functions.slice(0, 45).map(perStep).join('\n')}\n`,
    );
  }
  await connection.close();
} finally {
  await worker.stop();
  await server.stop();
}
