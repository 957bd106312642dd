// Section 4: what streaming adds to one step, no watcher: the same step of `tokens` tokens streamed at the default
// interval and not streamed (`streaming: false`, the model answering after the same time), alternating run by run.
import type { Client } from '@temporalio/client';
import { callModel } from '../../src/models/call-model.js';
import type { ResolvedLanguageModel } from '../../src/models/provider-registry.js';
import { median, round } from '../stats.js';
import { runBatch, type BatchSample } from './batch.js';
import type { StreamingRuntime } from './runtimes.js';
import { costOf, rotate, type CostSummary } from './summary.js';
import { writerAgent, type WriterSpec } from './writer.js';

/** Issue 19's target: worker CPU per streamed step ≤ 1.3× a non-streamed one. */
export const CPU_RATIO_TARGET = 1.3;

/** Medians per step, streamed and not, and streamed ÷ not streamed for each figure. */
export interface CostSection {
  tokens: number;
  overMs: number;
  reps: number;
  /** Streamed, nobody watching (the step publishes only while someone watches). */
  streamed: CostSummary;
  /** Streamed, one watcher from the start: what publishing costs. */
  watched: CostSummary;
  notStreamed: CostSummary;
  ratio: Record<keyof CostSummary, number>;
  watchedRatio: Record<keyof CostSummary, number>;
  /** Worker CPU a publish adds: (watched − unwatched) ÷ the watched step's signals (its watcher's polls included). */
  cpuMsPerPublish: number;
  /**
   * CPU of reading the same model stream in one process with no Temporal (`callModel` with a delta listener, as the
   * `generate` activity reads it), median ms: what streaming the model call costs before anything is published.
   */
  readInProcessCpuMs: number;
  /** The same stream read by a bare reader loop (no `callModel`, no listener): what the scripted model itself costs. */
  readRawCpuMs: number;
  /** `tokens − 1` bare timers of the model's delay, awaited one by one: what waking the process per chunk costs. */
  wakeUpsCpuMs: number;
}

/** Measures `reps` runs of each writer. */
export async function measureCost(
  ours: StreamingRuntime,
  history: Client,
  config: { reps: number; streamed: WriterSpec; plain: WriterSpec },
  log: (line: string) => void,
): Promise<CostSection> {
  const variants = ['streamed', 'watched', 'plain'] as const;
  type Variant = (typeof variants)[number];
  const samples = new Map<Variant, BatchSample[]>(variants.map((variant) => [variant, []]));
  const batch = (variant: Variant) =>
    runBatch(ours, history, {
      runs: 1,
      watchers: variant === 'watched' ? 1 : 0,
      mode: 'separate',
      writer: variant === 'plain' ? config.plain : config.streamed,
    });
  log('cost: warm-up');
  for (const variant of variants) await batch(variant); // JIT, caches: a cold worker's first runs cost more
  for (let rep = 0; rep < config.reps; rep++) {
    log(`cost: round ${rep + 1} of ${config.reps}`);
    for (const variant of rotate([...variants], rep)) samples.get(variant)!.push(await batch(variant));
  }
  const streamed = costOf(samples.get('streamed')!);
  const watched = costOf(samples.get('watched')!);
  const notStreamed = costOf(samples.get('plain')!);
  const { tokens, delayMs } = config.streamed;
  log('cost: reading the same model stream in this process, no Temporal');
  const reads: Record<'ours' | 'raw' | 'wakeUps', number[]> = { ours: [], raw: [], wakeUps: [] };
  for (let rep = 0; rep <= config.reps; rep++) {
    const ours = await cpuMsOf(() => readWithCallModel(config.streamed));
    const raw = await cpuMsOf(() => readRaw(config.streamed));
    const wakeUps = await cpuMsOf(() => wakeUpsOf(config.streamed));
    if (rep === 0) continue; // a warm-up
    reads.ours.push(ours);
    reads.raw.push(raw);
    reads.wakeUps.push(wakeUps);
  }
  return {
    tokens,
    overMs: (tokens - 1) * delayMs,
    reps: config.reps,
    streamed,
    watched,
    notStreamed,
    ratio: ratioOf(streamed, notStreamed),
    watchedRatio: ratioOf(watched, notStreamed),
    cpuMsPerPublish: round((watched.cpuMs - streamed.cpuMs) / Math.max(1, watched.signals), 2),
    readInProcessCpuMs: round(median(reads.ours), 1),
    readRawCpuMs: round(median(reads.raw), 1),
    wakeUpsCpuMs: round(median(reads.wakeUps), 1),
  };
}

function ratioOf(a: CostSummary, b: CostSummary): Record<keyof CostSummary, number> {
  return Object.fromEntries(
    Object.entries(a).map(([key, value]) => {
      const base = b[key as keyof CostSummary];
      return [key, base === 0 ? Number.NaN : round(value / base, 2)];
    }),
  ) as Record<keyof CostSummary, number>;
}

/** CPU ms (user + system) this process spends while `work` runs; nothing else runs in it meanwhile. */
async function cpuMsOf(work: () => Promise<unknown>): Promise<number> {
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

/** Reads `writer`'s model stream once, as the `generate` activity reads it. */
async function readWithCallModel(writer: WriterSpec): Promise<void> {
  const model = writerAgent(writer).model as ResolvedLanguageModel;
  await callModel({ model, messages: [{ role: 'user', content: 'write' }], tools: [], onDelta: () => undefined });
}

/** Reads `writer`'s model stream once with a bare reader loop. */
async function readRaw(writer: WriterSpec): Promise<void> {
  const model = writerAgent(writer).model as ResolvedLanguageModel;
  const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'write' }] }] });
  const reader = stream.getReader();
  while (!(await reader.read()).done);
}

/** Waits out the model's delays with bare timers, one by one, as its stream does. */
async function wakeUpsOf(writer: WriterSpec): Promise<void> {
  for (let i = 1; i < writer.tokens; i++) await new Promise((resolve) => setTimeout(resolve, writer.delayMs));
}
