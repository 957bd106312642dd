// `npx tsx bench/profile.ts [durableAgent|floor] [runs] [toolSteps] [local|-] [atOnce]`: CPU profiles of a bench
// worker (every thread: the main thread runs activities and payload conversion, a worker thread runs the workflow
// sandbox) over `runs` runs after a warm-up, `atOnce` of them started together (1: one after another), and a summary
// of where the time went per step. Profiles are written to `$TMPDIR/durable-agent-profile-*/` for Chrome DevTools.
// `npm run bench -- --only=profile` does the same at 200 runs at once for both runtimes into the bench report.
import { mkdtempSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/worker/dev-server.js';
import { startChildWorker } from './child-worker.js';
import type { ProfileEntry } from './cpu-profile.js';
import { durableAgentRuntime, floorRuntime } from './runtimes.js';
import { summarizeThread } from './sections/profile.js';
import { modelSteps } from './workload.js';

const [kind = 'durableAgent', runsArg = '30', stepsArg = '20', local, atOnceArg = '1'] = process.argv.slice(2);
if (kind !== 'durableAgent' && kind !== 'floor') throw new Error('Profile durableAgent or floor.');
const runs = Number(runsArg);
const atOnce = Math.max(1, Number(atOnceArg));
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
  // `runs` runs in batches of `atOnce` started together.
  const batches = async (each: (count: number) => Promise<void>) => {
    for (let done = 0; done < runs; done += atOnce) await each(Math.min(atOnce, runs - done));
  };
  // First without the profiler (its sampling costs CPU of its own), then with it.
  const before = await worker.stats();
  const startedAt = performance.now();
  await batches(async (count) => void (await Promise.all(Array.from({ length: count }, () => runtime.run(spec)))));
  const wallMs = performance.now() - startedAt;
  const after = await worker.stats();
  const cpu = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-profile-'));
  const files: string[] = [];
  await worker.startProfiles();
  try {
    await batches(async (count) => void (await Promise.all(Array.from({ length: count }, () => runtime.run(spec)))));
  } finally {
    files.push(...(await worker.stopProfiles(dir)));
  }
  process.stdout.write(
    `${kind}${options.localTool ? ' (local tool)' : ''}: ${runs} runs × ${modelSteps(spec)} steps ` +
      `(${atOnce} at once), ` +
      `${(wallMs / steps).toFixed(2)} ms/step wall, ${(cpu / steps).toFixed(2)} ms/step process CPU, ` +
      `${((after.threadPromises - before.threadPromises) / steps).toFixed(1)} workflow-thread promises/step, ` +
      `${((after.workflowPromises - before.workflowPromises) / steps).toFixed(1)} of them by workflow code ` +
      `(without the profiler); profiles in ${dir}\n`,
  );
  for (const file of files) {
    // Already per step.
    const summary = summarizeThread(file, steps, 45);
    const line = (e: ProfileEntry) =>
      `${e.selfMs.toFixed(3).padStart(7)} ${e.totalMs.toFixed(3).padStart(7)}  ${e.name}`;
    process.stdout.write(
      `\n== ${summary.thread}: busy ${summary.busyMsPerStep.toFixed(2)} ms/step (self, total ms/step)\n` +
        `-- groups\n${summary.groups.slice(0, 25).map(line).join('\n')}\n` +
        `-- functions\n${summary.functions.map(line).join('\n')}\n`,
    );
  }
  await connection.close();
} finally {
  await worker.stop();
  await server.stop();
}
