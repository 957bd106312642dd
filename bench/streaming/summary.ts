// Batches reduced to the figures the report shows: latency percentiles over every token of every watcher, and
// medians per run of history and worker CPU. Medians and p95 only, never means.
import { median, quantile, round } from '../stats.js';
import type { BatchSample, RunCost } from './batch.js';

/** Delivery latency (ms, model emitted → watcher received) over batches. */
export interface DeliverySummary {
  firstP50: number;
  firstP95: number;
  laterP50: number;
  laterP95: number;
  /** Tokens a watcher missed, and tokens a watcher got twice, over all batches (both should be 0). */
  missed: number;
  repeated: number;
  /** Latencies measured (first tokens + later tokens). */
  tokens: number;
}

/** Medians per run: its history and its worker's CPU time. */
export interface CostSummary extends RunCost {
  cpuMs: number;
  mainCpuMs: number;
  workflowCpuMs: number;
  /** Commands the bench's redis-server ran per run, median over batches (0 when the runtime has no Redis). */
  redisCommands: number;
}

/** Delivery over `samples`. */
export function deliveryOf(samples: BatchSample[]): DeliverySummary {
  const first = samples.flatMap((sample) => sample.first);
  const later = samples.flatMap((sample) => sample.later);
  return {
    firstP50: round(median(first), 1),
    firstP95: round(quantile(first, 0.95), 1),
    laterP50: round(median(later), 1),
    laterP95: round(quantile(later, 0.95), 1),
    missed: samples.reduce((sum, sample) => sum + sample.missed, 0),
    repeated: samples.reduce((sum, sample) => sum + sample.repeated, 0),
    tokens: first.length + later.length,
  };
}

/** History medians over every run of `samples`, CPU per run medians over batches. */
export function costOf(samples: BatchSample[]): CostSummary {
  const costs = samples.flatMap((sample) => sample.costs);
  const med = (key: keyof RunCost) => round(median(costs.map((cost) => cost[key])), 1);
  return {
    events: med('events'),
    payloadBytes: med('payloadBytes'),
    signals: med('signals'),
    updates: med('updates'),
    workflowTasks: med('workflowTasks'),
    actions: med('actions'),
    cpuMs: round(median(samples.map((sample) => sample.cpu.totalMs)), 1),
    mainCpuMs: round(median(samples.map((sample) => sample.cpu.mainMs)), 1),
    workflowCpuMs: round(median(samples.map((sample) => sample.cpu.workflowMs)), 1),
    redisCommands: round(median(samples.map((sample) => sample.redisCommands)), 1),
  };
}

/** `list` rotated left by `by`: round `by` of an interleaved comparison starts with another entry. */
export function rotate<T>(list: readonly T[], by: number): T[] {
  const shift = by % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
}
