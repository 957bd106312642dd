// One measured batch: some runs of one runtime started at once, each watched by some watchers, on the runtime's own
// worker process. It returns every watcher's token latencies, what each run left in history, and the worker's CPU
// time per run (read from the worker process before and after, so only this runtime's worker is counted; the
// other runtime's worker sits idle meanwhile, as batches never overlap).
import type { Client } from '@temporalio/client';
import { historyStats } from '../history-bytes.js';
import type { StreamingRuntime, WatchMode } from './runtimes.js';
import type { TokenLatencies } from './watch.js';
import type { WriterSpec } from './writer.js';

/** What one run left in its history: the Temporal actions and bytes it cost. */
export interface RunCost {
  events: number;
  /** UTF-8 bytes of every payload's data in the history (inputs, results, signals, updates). */
  payloadBytes: number;
  signals: number;
  /** Updates accepted (every watcher poll that was answered, and a few of the run's own). */
  updates: number;
  workflowTasks: number;
  /**
   * Temporal Cloud actions, estimated from the history as Temporal Cloud's own per-event estimate does: the run's
   * start (and each continue-as-new or child start), each signal, accepted update, scheduled activity, timer, local
   * activity marker and search attribute or memo upsert. Activity heartbeats and queries are not in history and not
   * counted (a lower bound).
   */
  actions: number;
}

/** History event kinds Temporal Cloud bills one action each (see {@link RunCost.actions}). */
const ACTION_EVENT_KINDS = [
  'workflowExecutionStarted',
  'workflowExecutionContinuedAsNew',
  'startChildWorkflowExecutionInitiated',
  'workflowExecutionSignaled',
  'signalExternalWorkflowExecutionInitiated',
  'requestCancelExternalWorkflowExecutionInitiated',
  'workflowExecutionUpdateAccepted',
  'activityTaskScheduled',
  'timerStarted',
  'markerRecorded',
  'upsertWorkflowSearchAttributes',
  'workflowPropertiesModified',
];

/** Worker CPU time (user + system) per run, ms: all of it, its main thread, its workflow threads. */
export interface WorkerCpu {
  totalMs: number;
  mainMs: number;
  workflowMs: number;
}

/** Everything one batch measured. */
export interface BatchSample {
  /** Each watcher's first token's latency. */
  first: number[];
  /** Every later token's latency, over all watchers. */
  later: number[];
  /** Tokens that some watcher should have received and did not. */
  missed: number;
  /** Tokens some watcher received more than once. */
  repeated: number;
  costs: RunCost[];
  cpu: WorkerCpu;
  /** Commands the bench's redis-server ran over the batch ÷ runs (publishes and every watcher's reads). */
  redisCommands: number;
  wallMs: number;
}

/** Options of {@link runBatch}. */
export interface BatchOptions {
  runs: number;
  /** Watchers per run (0: none). */
  watchers: number;
  mode: WatchMode;
  writer: WriterSpec;
  streaming?: false | { intervalMs: number };
}

/** A batch that has not ended by then has hung (a watcher that never sees its run end, say). */
const BATCH_SLACK_MS = 120_000;

/** Runs one batch; `history` reads the runs' histories afterwards. */
export async function runBatch(
  runtime: StreamingRuntime,
  history: Client,
  options: BatchOptions,
): Promise<BatchSample> {
  const { writer } = options;
  const before = await runtime.worker.stats();
  const redisBefore = (await runtime.redisCommands?.()) ?? 0;
  const startedAt = Date.now();
  // Each run's watchers subscribe as soon as it is started, as a caller that starts a run and watches it would.
  const runs = await withTimeout(
    Promise.all(
      Array.from({ length: options.runs }, async () => {
        const run = await runtime.start(writer, options.streaming, options.watchers > 0);
        const watched = Array.from({ length: options.watchers }, (_, index) => run.watch(index, options.mode));
        const [latencies] = await Promise.all([Promise.all(watched), run.finished()]);
        return { workflowId: run.workflowId, latencies };
      }),
    ),
    writer.tokens * writer.delayMs + BATCH_SLACK_MS,
    `${runtime.label}: ${options.runs} runs of ${writer.name}`,
  );
  const wallMs = Date.now() - startedAt;
  const after = await runtime.worker.stats();
  const redisAfter = (await runtime.redisCommands?.()) ?? 0;
  const expected = writer.kind === 'stamped' && options.streaming !== false ? writer.tokens : 0;
  const watchers: TokenLatencies[] = runs.flatMap((run) => run.latencies);
  const costs = await Promise.all(runs.map((run) => runCost(history, run.workflowId)));
  const per = (ms: number) => ms / options.runs;
  return {
    first: watchers.flatMap((latencies) => latencies.slice(0, 1)),
    later: watchers.flatMap((latencies) => latencies.slice(1)),
    missed: watchers.reduce((sum, latencies) => sum + Math.max(0, expected - latencies.length), 0),
    repeated: watchers.reduce((sum, latencies) => sum + Math.max(0, latencies.length - expected), 0),
    costs,
    cpu: {
      totalMs: per(after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs),
      mainMs: per(after.mainCpuMs - before.mainCpuMs),
      workflowMs: per(after.threadCpuMs - before.threadCpuMs),
    },
    redisCommands: per(redisAfter - redisBefore),
    wallMs,
  };
}

async function runCost(client: Client, workflowId: string): Promise<RunCost> {
  const stats = await historyStats(client, workflowId);
  const count = (kind: string) => stats.eventsByKind[kind] ?? 0;
  return {
    events: stats.events,
    payloadBytes: stats.payloadBytes,
    signals: count('workflowExecutionSignaled'),
    updates: count('workflowExecutionUpdateAccepted'),
    workflowTasks: count('workflowTaskCompleted'),
    actions: ACTION_EVENT_KINDS.reduce((sum, kind) => sum + count(kind), 0),
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms.`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
