// Section 1: durable-agent against @temporalio/ai-sdk's streaming, one run at a time with one watcher, the runtimes
// alternating run by run (each round starts with the next one) so drift on a shared machine hits both alike.
import type { Client } from '@temporalio/client';
import { runBatch, type BatchSample } from './batch.js';
import type { StreamingRuntime } from './runtimes.js';
import { costOf, deliveryOf, rotate, type CostSummary, type DeliverySummary } from './summary.js';
import type { WriterSpec } from './writer.js';

/** One runtime's delivery and cost per streamed step (one step per run, one watcher). */
export interface HeadToHeadRow extends DeliverySummary, CostSummary {
  runtime: StreamingRuntime['key'];
  label: string;
  runs: number;
}

/** Measures `reps` runs of `writer` per runtime after one warm-up run each. */
export async function measureHeadToHead(
  runtimes: StreamingRuntime[],
  history: Client,
  config: { reps: number; writer: WriterSpec },
  log: (line: string) => void,
): Promise<HeadToHeadRow[]> {
  const samples = new Map<StreamingRuntime, BatchSample[]>(runtimes.map((runtime) => [runtime, []]));
  const batch = (runtime: StreamingRuntime) =>
    runBatch(runtime, history, { runs: 1, watchers: 1, mode: 'separate', writer: config.writer });
  for (const runtime of runtimes) await batch(runtime); // warm-up: JIT, first connections
  for (let rep = 0; rep < config.reps; rep++) {
    log(`head to head: round ${rep + 1} of ${config.reps}`);
    for (const runtime of rotate(runtimes, rep)) samples.get(runtime)!.push(await batch(runtime));
  }
  return runtimes.map((runtime) => {
    const mine = samples.get(runtime)!;
    return { runtime: runtime.key, label: runtime.label, runs: mine.length, ...deliveryOf(mine), ...costOf(mine) };
  });
}
