// Section 3: delivery with many runs and watchers: 1, 10 and 50 runs started at once, each read by one watcher,
// by three watchers in this process on one Temporal client (durable-agent's client shares one subscription
// between them), and by three watchers on separate clients and connections (a subscription each, as separate
// processes would have). Each cell alternates the runtimes batch by batch.
import type { Client } from '@temporalio/client';
import { DEFAULT_DELTA_INTERVAL_MS } from '../../src/protocol/run-stream.js';
import { runBatch, type BatchSample } from './batch.js';
import type { StreamingRuntime, WatchMode } from './runtimes.js';
import { costOf, deliveryOf, rotate, type DeliverySummary } from './summary.js';
import type { WriterSpec } from './writer.js';

/** Issue 19's target on the embedded server: the first token reaches a watcher within this (ms, p50). */
export const FIRST_TOKEN_TARGET_MS = 50;
/** Issue 19's target: later tokens reach a watcher within the batch interval plus this (ms, p95). */
export const LATER_TOKEN_SLACK_MS = 50;

/** One runtime at one load: delivery, and what the watching cost per run. */
export interface WatchersRow extends DeliverySummary {
  runtime: StreamingRuntime['key'];
  label: string;
  runs: number;
  watchers: number;
  /** `one`: a single watcher per run. */
  mode: WatchMode | 'one';
  batches: number;
  /** Median per run: updates in its history (answered polls) and its worker's CPU time. */
  updatesPerRun: number;
  cpuMsPerRun: number;
  /** Median per run: Temporal Cloud actions estimated from its history, and the Redis commands it cost. */
  actionsPerRun: number;
  redisCommandsPerRun: number;
  /** durable-agent only: first token p50 ≤ 50 ms, later tokens p95 ≤ the batch interval + 50 ms. */
  meetsTargets?: { first: boolean; later: boolean };
}

const CELLS: { watchers: number; mode: WatchMode | 'one' }[] = [
  { watchers: 1, mode: 'one' },
  { watchers: 3, mode: 'shared' },
  { watchers: 3, mode: 'separate' },
];

/** Measures every level and cell; `oneRunBatches` batches at 1 run (one batch at more), alternating runtimes. */
export async function measureWatchers(
  runtimes: StreamingRuntime[],
  history: Client,
  config: { levels: number[]; oneRunBatches: number; writer: WriterSpec },
  log: (line: string) => void,
): Promise<WatchersRow[]> {
  const rows: WatchersRow[] = [];
  for (const runs of config.levels) {
    for (const cell of CELLS) {
      const mode: WatchMode = cell.mode === 'one' ? 'separate' : cell.mode;
      const cellRuntimes = runtimes.filter((runtime) => runtime.modes.includes(mode));
      const samples = new Map<StreamingRuntime, BatchSample[]>(cellRuntimes.map((runtime) => [runtime, []]));
      const batches = runs === 1 ? config.oneRunBatches : 1;
      log(`watchers: ${runs} runs, ${cell.watchers} watchers each (${cell.mode}), ${batches} batches`);
      for (let batch = 0; batch < batches; batch++) {
        for (const runtime of rotate(cellRuntimes, batch + runs)) {
          const options = { runs, watchers: cell.watchers, mode, writer: config.writer };
          samples.get(runtime)!.push(await runBatch(runtime, history, options));
        }
      }
      for (const runtime of cellRuntimes) {
        const mine = samples.get(runtime)!;
        const delivery = deliveryOf(mine);
        const cost = costOf(mine);
        rows.push({
          runtime: runtime.key,
          label: runtime.label,
          runs,
          watchers: cell.watchers,
          mode: cell.mode,
          batches,
          ...delivery,
          updatesPerRun: cost.updates,
          cpuMsPerRun: cost.cpuMs,
          actionsPerRun: cost.actions,
          redisCommandsPerRun: cost.redisCommands,
          ...(runtime.key === 'durableAgent' || runtime.key === 'durableAgentRedis'
            ? {
                meetsTargets: {
                  first: delivery.firstP50 <= FIRST_TOKEN_TARGET_MS,
                  later: delivery.laterP95 <= DEFAULT_DELTA_INTERVAL_MS + LATER_TOKEN_SLACK_MS,
                },
              }
            : {}),
        });
      }
    }
  }
  return rows;
}
