// Runs waiting for a person: the worker's memory per waiting run (RSS and V8 heap over every thread, after a full
// GC, against the same worker before the runs), and the time to approve them all (each approval's latency, sent a
// few at a time as people would), with a workflow cache that holds every run and with one smaller than the number
// of runs (approvals then replay evicted runs). Each runtime gets a fresh worker per scenario; every run must
// complete after its approval.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { mapLimit } from '../pool.js';
import type { BenchRuntime } from '../runtimes.js';
import { quantile, round } from '../stats.js';
import type { ApprovalRow, MemoryRow } from '../report.js';

/** Settings of the waiting-runs section. */
export interface WaitingConfig {
  /** Memory is measured as the number of waiting runs reaches each of these. */
  ladder: number[];
  /** Runtimes whose ladder stops earlier (their runs would not fit the worker's heap), with the largest count. */
  ladderCaps?: Partial<Record<WaitingKey, number>>;
  /** Runs of the approval scenarios (with the default cache, and with `smallCache`). */
  approvalRuns: number;
  /** A workflow cache smaller than `approvalRuns`. */
  smallCache: number;
  /** Approvals in flight at once. */
  approvalConcurrency: number;
}

type WaitingKey = 'floor' | 'durableAgent' | 'temporalAiSdk';

/** Starts a runtime on a fresh worker with the given workflow cache size (default: the SDK's). */
export type WaitingRuntimeFactory = (key: WaitingKey, maxCachedWorkflows?: number) => Promise<BenchRuntime>;

/** Runs the section for each runtime key; a runtime that fails is reported through `guarded` and left out. */
export async function measureWaiting(
  temporal: Client,
  keys: WaitingKey[],
  factory: WaitingRuntimeFactory,
  config: WaitingConfig,
  guarded: <T>(key: WaitingKey, what: () => Promise<T>) => Promise<T | undefined>,
  log: (line: string) => void,
): Promise<{ memory: MemoryRow[]; approvals: ApprovalRow[] }> {
  const memory: MemoryRow[] = [];
  const approvals: ApprovalRow[] = [];
  for (const key of keys) {
    const cap = config.ladderCaps?.[key] ?? Number.POSITIVE_INFINITY;
    const ladder = config.ladder.filter((level) => level <= cap);
    const largest = Math.max(...ladder);
    await guarded(key, async () => {
      // A cache that holds every run: what each waiting run costs in memory.
      const runtime = await factory(key, largest + 100);
      try {
        log(`Waiting runs: ${runtime.label}, memory at ${ladder.join(', ')} waiting runs`);
        await warmUp(temporal, runtime);
        const baseline = await runtime.worker!.stats({ gc: true });
        const ids: string[] = [];
        for (const level of ladder) {
          const added = Array.from({ length: level - ids.length }, () => `bench-wait-${randomUUID()}`);
          await mapLimit(added, 20, (id) => runtime.waiting!.start(id));
          await waitUntilWaiting(temporal, added);
          ids.push(...added);
          const stats = await runtime.worker!.stats({ gc: true });
          memory.push({
            runtime: key,
            label: runtime.label,
            waitingRuns: level,
            cacheSize: largest + 100,
            rssBytes: stats.rssBytes - baseline.rssBytes,
            heapBytes: stats.heapUsedBytes - baseline.heapUsedBytes,
            rssPerRunBytes: round((stats.rssBytes - baseline.rssBytes) / level, 0),
            heapPerRunBytes: round((stats.heapUsedBytes - baseline.heapUsedBytes) / level, 0),
          });
        }
        approvals.push(await approveAll(runtime, key, ids, largest + 100, config, log));
      } finally {
        await runtime.worker!.stop();
      }
    });
  }
  for (const cache of [undefined, config.smallCache]) {
    for (const key of keys) {
      await guarded(key, async () => {
        const runtime = await factory(key, cache);
        try {
          const what = cache === undefined ? 'the default cache' : `a cache of ${cache}`;
          log(`Waiting runs: ${runtime.label}, ${config.approvalRuns} runs approved with ${what}`);
          await warmUp(temporal, runtime);
          const ids = Array.from({ length: config.approvalRuns }, () => `bench-wait-${randomUUID()}`);
          await mapLimit(ids, 20, (id) => runtime.waiting!.start(id));
          await waitUntilWaiting(temporal, ids);
          approvals.push(await approveAll(runtime, key, ids, cache, config, log));
        } finally {
          await runtime.worker!.stop();
        }
      });
    }
  }
  return { memory, approvals };
}

/** One run through start, approval and result, so the baseline has every module loaded. */
async function warmUp(temporal: Client, runtime: BenchRuntime): Promise<void> {
  const id = `bench-wait-warmup-${randomUUID()}`;
  await runtime.waiting!.start(id);
  await waitUntilWaiting(temporal, [id]);
  await runtime.waiting!.prepare(id);
  await runtime.waiting!.approve(id);
  await runtime.waiting!.finish(id);
}

/**
 * Reads what each decision needs (in start order), then approves every run in the same order, a few at a time,
 * timing each approval, and waits for every result. With a cache smaller than the runs, a run's approval comes long
 * after it was last in the cache, so it replays.
 */
async function approveAll(
  runtime: BenchRuntime,
  key: WaitingKey,
  ids: string[],
  cacheSize: number | undefined,
  config: WaitingConfig,
  log: (line: string) => void,
): Promise<ApprovalRow> {
  const waiting = runtime.waiting!;
  await mapLimit(ids, 20, (id) => waiting.prepare(id));
  log(`  approving ${ids.length} runs, ${config.approvalConcurrency} at a time`);
  const startedAt = performance.now();
  const latencies = await mapLimit(ids, config.approvalConcurrency, async (id) => {
    const sentAt = performance.now();
    await waiting.approve(id);
    return performance.now() - sentAt;
  });
  const approveMs = performance.now() - startedAt;
  let completed = 0;
  await mapLimit(ids, 50, async (id) => {
    await waiting.finish(id);
    completed++;
  });
  return {
    runtime: key,
    label: runtime.label,
    runs: ids.length,
    cacheSize: cacheSize ?? 'default',
    concurrency: config.approvalConcurrency,
    totalMs: round(approveMs),
    p50Ms: round(quantile(latencies, 0.5)),
    p95Ms: round(quantile(latencies, 0.95)),
    maxMs: round(Math.max(...latencies)),
    completed,
  };
}

/**
 * Waits until every run is waiting: running, with no activity and no workflow task pending (so its worker has
 * nothing left to do for it until someone decides).
 */
export async function waitUntilWaiting(temporal: Client, ids: string[], timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending = ids;
  while (pending.length > 0) {
    const waiting = await mapLimit(pending, 50, async (id) =>
      isWaiting(await temporal.workflow.getHandle(id).describe()),
    );
    pending = pending.filter((_, i) => !waiting[i]);
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${pending.length} runs did not reach their approval wait in time.`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function isWaiting(description: WorkflowExecutionDescription): boolean {
  if (description.status.name !== 'RUNNING') {
    throw new Error(`Run ${description.workflowId} is ${description.status.name} instead of waiting for approval.`);
  }
  const raw = description.raw;
  return (raw.pendingActivities?.length ?? 0) === 0 && !raw.pendingWorkflowTask && description.historyLength > 3;
}
