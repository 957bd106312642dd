// `npx tsx bench/heap-profile.ts [durableAgent|floor] [runs]`: where a waiting run's memory goes. Heap snapshots of
// every thread of a bench worker before and after `runs` runs reach their approval wait, diffed per object kind and
// divided by the number of runs. Snapshots are kept in `$TMPDIR/durable-agent-heap-*/` for Chrome DevTools.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/worker/dev-server.js';
import { startChildWorker } from './child-worker.js';
import { heapDiff, heapKinds } from './heap-snapshot.js';
import { mapLimit } from './pool.js';
import { WAITING_SPEC, durableAgentRuntime, floorRuntime } from './runtimes.js';
import { waitUntilWaiting } from './sections/waiting.js';

const [kind = 'durableAgent', runsArg = '200'] = process.argv.slice(2);
if (kind !== 'durableAgent' && kind !== 'floor') throw new Error('Profile durableAgent or floor.');
const runs = Number(runsArg);
const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));

const server = await startDevServer();
const taskQueue = `heap-${randomUUID()}`;
const worker = await startChildWorker({
  name: kind,
  args: ['--import', 'tsx', kind === 'floor' ? `${BENCH_DIR}floor/worker.ts` : `${BENCH_DIR}durable-agent-worker.ts`],
  cwd: ROOT_DIR,
  env: {
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_NAMESPACE: server.namespace,
    TASK_QUEUE: taskQueue,
    BENCH_SPECS: JSON.stringify([WAITING_SPEC]),
    BENCH_MAX_CACHED_WORKFLOWS: String(runs + 100),
  },
});
try {
  const connection = await Connection.connect({ address: server.address });
  const temporal = new Client({ connection, namespace: server.namespace });
  const runtime =
    kind === 'floor' ? floorRuntime(temporal, taskQueue, worker) : durableAgentRuntime(temporal, taskQueue, worker);
  const waiting = runtime.waiting!;
  // Warm up: one run through, so every module is loaded before the baseline.
  const warm = `heap-warm-${randomUUID()}`;
  await waiting.start(warm);
  await waitUntilWaiting(temporal, [warm]);
  await waiting.prepare(warm);
  await waiting.approve(warm);
  await waiting.finish(warm);
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-heap-'));
  const before = await worker.stats({ gc: true });
  const baseline = await worker.heapSnapshots(join(dir));
  const ids = Array.from({ length: runs }, () => `heap-${randomUUID()}`);
  await mapLimit(ids, 20, (id) => waiting.start(id));
  await waitUntilWaiting(temporal, ids);
  const after = await worker.stats({ gc: true });
  const loaded = await worker.heapSnapshots(join(dir));
  process.stdout.write(
    `${kind}: ${runs} waiting runs; per run: RSS ${((after.rssBytes - before.rssBytes) / runs / 1024).toFixed(1)} KB, ` +
      `heap ${((after.heapUsedBytes - before.heapUsedBytes) / runs / 1024).toFixed(1)} KB (main ` +
      `${((after.mainHeapUsedBytes - before.mainHeapUsedBytes) / runs / 1024).toFixed(1)}, workflow threads ` +
      `${((after.threadHeapUsedBytes - before.threadHeapUsedBytes) / runs / 1024).toFixed(1)}); snapshots in ${dir}\n`,
  );
  for (const [index, file] of loaded.entries()) {
    const diff = heapDiff(heapKinds(baseline[index]!), heapKinds(file));
    const total = diff.reduce((sum, entry) => sum + entry.bytes, 0);
    process.stdout.write(`\n== ${file.split('/').pop()}: ${(total / runs / 1024).toFixed(1)} KB per run in snapshot\n`);
    for (const entry of diff.slice(0, 40)) {
      process.stdout.write(
        `${(entry.bytes / runs).toFixed(0).padStart(8)} B ${(entry.count / runs).toFixed(1).padStart(7)} objs  ${entry.kind}\n`,
      );
    }
  }
  await connection.close();
} finally {
  await worker.stop();
  await server.stop();
}
