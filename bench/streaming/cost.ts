// Section 4: what streaming adds to one step, no watcher: the same step of `tokens` tokens streamed at the default
// interval and not streamed (`streaming: false`, the model answering after the same time), alternating run by run.
import type { Client } from '@temporalio/client';
import { round } from '../stats.js';
import { runBatch, type BatchSample } from './batch.js';
import type { StreamingRuntime } from './runtimes.js';
import { costOf, rotate, type CostSummary } from './summary.js';
import type { WriterSpec } from './writer.js';

/** Issue 19's target: worker CPU per streamed step ≤ 1.3× a non-streamed one. */
export const CPU_RATIO_TARGET = 1.3;

/** Medians per step, streamed and not, and streamed ÷ not streamed for each figure. */
export interface CostSection {
  tokens: number;
  overMs: number;
  reps: number;
  streamed: CostSummary;
  notStreamed: CostSummary;
  ratio: Record<keyof CostSummary, number>;
  /** Worker CPU that streaming added, per publish (signal): (streamed − not streamed) ÷ signals. */
  cpuMsPerPublish: number;
}

/** Measures `reps` runs of each writer. */
export async function measureCost(
  ours: StreamingRuntime,
  history: Client,
  config: { reps: number; streamed: WriterSpec; plain: WriterSpec },
  log: (line: string) => void,
): Promise<CostSection> {
  const writers = [config.streamed, config.plain];
  const samples = new Map<WriterSpec, BatchSample[]>(writers.map((writer) => [writer, []]));
  const batch = (writer: WriterSpec) => runBatch(ours, history, { runs: 1, watchers: 0, mode: 'separate', writer });
  log('cost: warm-up');
  for (const writer of writers) await batch(writer); // JIT, caches: a cold worker's first runs cost more
  for (let rep = 0; rep < config.reps; rep++) {
    log(`cost: round ${rep + 1} of ${config.reps}`);
    for (const writer of rotate(writers, rep)) samples.get(writer)!.push(await batch(writer));
  }
  const streamed = costOf(samples.get(config.streamed)!);
  const notStreamed = costOf(samples.get(config.plain)!);
  const ratio = Object.fromEntries(
    Object.entries(streamed).map(([key, value]) => {
      const base = notStreamed[key as keyof CostSummary];
      return [key, base === 0 ? Number.NaN : round(value / base, 2)];
    }),
  ) as Record<keyof CostSummary, number>;
  const { tokens, delayMs } = config.streamed;
  const cpuMsPerPublish = round((streamed.cpuMs - notStreamed.cpuMs) / Math.max(1, streamed.signals), 2);
  return { tokens, overMs: (tokens - 1) * delayMs, reps: config.reps, streamed, notStreamed, ratio, cpuMsPerPublish };
}
