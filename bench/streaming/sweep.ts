// Section 2: the batch interval, measured to choose its default. durable-agent's same streamed step at each
// interval (the per-run `streaming: { intervalMs }` option) and not streamed, one watcher each, the variants
// alternating run by run: how late later tokens reach the watcher, and what a streamed step costs at that
// interval (signals, updates, workflow tasks, history, worker CPU), against the same step not streamed.
import type { Client } from '@temporalio/client';
import { round } from '../stats.js';
import { runBatch, type BatchSample } from './batch.js';
import type { StreamingRuntime } from './runtimes.js';
import { costOf, deliveryOf, rotate, type CostSummary, type DeliverySummary } from './summary.js';
import type { WriterSpec } from './writer.js';

/** One interval (or the step not streamed): delivery and cost per streamed step, one watcher. */
export interface SweepRow extends CostSummary {
  intervalMs: number | 'not streamed';
  runs: number;
  /** Not streamed: no tokens arrive before the step's final message. */
  delivery?: DeliverySummary;
  /** Worker CPU ÷ the same step not streamed. */
  cpuRatio: number;
}

/** Measures `reps` runs per interval and of `plain` (the same step not streamed, the same text size). */
export async function measureSweep(
  ours: StreamingRuntime,
  history: Client,
  config: { intervals: number[]; reps: number; writer: WriterSpec; plain: WriterSpec },
  log: (line: string) => void,
): Promise<SweepRow[]> {
  const variants: (number | 'not streamed')[] = [...config.intervals, 'not streamed'];
  const samples = new Map<number | 'not streamed', BatchSample[]>(variants.map((variant) => [variant, []]));
  const batch = (variant: number | 'not streamed') =>
    runBatch(ours, history, {
      runs: 1,
      watchers: 1,
      mode: 'separate',
      ...(variant === 'not streamed'
        ? { writer: config.plain }
        : { writer: config.writer, streaming: { intervalMs: variant } }),
    });
  log('interval sweep: warm-up');
  // JIT, caches: a cold worker's first runs cost more. One streamed run and one not.
  for (const variant of [config.intervals[0]!, 'not streamed' as const]) await batch(variant);
  for (let rep = 0; rep < config.reps; rep++) {
    log(`interval sweep: round ${rep + 1} of ${config.reps}`);
    for (const variant of rotate(variants, rep)) samples.get(variant)!.push(await batch(variant));
  }
  const plainCpu = costOf(samples.get('not streamed')!).cpuMs;
  return variants.map((variant) => {
    const mine = samples.get(variant)!;
    const cost = costOf(mine);
    return {
      intervalMs: variant,
      runs: mine.length,
      ...cost,
      ...(variant === 'not streamed' ? {} : { delivery: deliveryOf(mine) }),
      cpuRatio: round(cost.cpuMs / plainCpu, 2),
    };
  });
}
