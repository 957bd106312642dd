// Where a worker's CPU goes at scale: for the floor and durable-agent, a batch of runs started at once (200 runs of 6
// model steps in the full bench) on one worker, first without the profiler (steps/s, CPU per step and workflow-thread
// promises per step), then the same batch again with V8's CPU profiler in every thread of the worker (the main
// thread: activities, payload conversion, the SDK's side of workflow tasks; worker threads: the workflow sandbox).
// Each thread's profile is summarized: top functions and packages by self time, per model step. The `.cpuprofile`
// files stay on disk for Chrome DevTools.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize, type CpuProfile, type ProfileEntry, type ProfileSummary } from '../cpu-profile.js';
import type { ChildWorker, WorkerStats } from '../child-worker.js';
import type { BenchRuntime } from '../runtimes.js';
import { median, round } from '../stats.js';
import { modelSteps, type WorkloadSpec } from '../workload.js';
import type { ProfileRow, ProfileThread } from '../report.js';

/** Settings of the profile section. */
export interface ProfileConfig {
  /** Runs started at once. */
  runs: number;
  toolSteps: number;
  bytes: number;
  /** Batches per runtime without the profiler, alternating between the runtimes; figures are their medians. */
  rounds: number;
  /** Functions and groups kept per thread. */
  top: number;
}

/** What one batch of runs started at once cost the worker, without the profiler. */
export interface BatchCost {
  wallMs: number;
  stepsPerSecond: number;
  cpuMsPerStep: number;
  mainCpuMsPerStep: number;
  workflowCpuMsPerStep: number;
  /** Promises created in the workflow threads per model step (the SDK's and the workflows'). */
  promisesPerStep: number;
  /** Of them, those workflow code made in the sandbox: Temporal's promise hook captures a stack trace for each. */
  workflowPromisesPerStep: number;
}

/** Runs `runs` runs of `spec` at once and reads the worker's CPU time and workflow-thread promises around them. */
export async function measureBatch(
  runtime: BenchRuntime & { worker: ChildWorker },
  spec: WorkloadSpec,
  runs: number,
): Promise<BatchCost> {
  const steps = runs * modelSteps(spec);
  const before = await runtime.worker.stats();
  const startedAt = performance.now();
  await Promise.all(Array.from({ length: runs }, () => runtime.run(spec)));
  const wallMs = performance.now() - startedAt;
  const after = await runtime.worker.stats();
  const delta = (pick: (s: WorkerStats) => number) => (pick(after) - pick(before)) / steps;
  return {
    wallMs,
    stepsPerSecond: (steps / wallMs) * 1000,
    cpuMsPerStep: delta((s) => s.cpuUserMs + s.cpuSystemMs),
    mainCpuMsPerStep: delta((s) => s.mainCpuMs),
    workflowCpuMsPerStep: delta((s) => s.threadCpuMs),
    promisesPerStep: delta((s) => s.threadPromises),
    workflowPromisesPerStep: delta((s) => s.workflowPromises),
  };
}

/** Runs `runs` runs of `spec` at once with the CPU profiler on in every thread; the profiles land in `dir`. */
export async function profileBatch(
  runtime: BenchRuntime & { worker: ChildWorker },
  spec: WorkloadSpec,
  runs: number,
  dir: string,
): Promise<{ wallMs: number; files: string[] }> {
  await runtime.worker.startProfiles();
  const startedAt = performance.now();
  try {
    await Promise.all(Array.from({ length: runs }, () => runtime.run(spec)));
  } catch (error) {
    await runtime.worker.stopProfiles(dir).catch(() => undefined);
    throw error;
  }
  const wallMs = performance.now() - startedAt;
  return { wallMs, files: await runtime.worker.stopProfiles(dir) };
}

/** One profile file summarized per model step: its busy time and its top functions and groups by self time. */
export function summarizeThread(file: string, steps: number, top: number): ProfileThread {
  const summary = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const perStep = (entry: ProfileEntry): ProfileEntry => ({
    name: entry.name,
    selfMs: round(entry.selfMs / steps, 4),
    totalMs: round(entry.totalMs / steps, 4),
  });
  const name = file
    .split('/')
    .pop()!
    .replace(/\.cpuprofile$/, '');
  return {
    thread: name === 'main' ? 'main' : `${name} (worker thread)`,
    file,
    wallMs: round(summary.wallMs),
    busyMsPerStep: round(summary.busyMs / steps, 4),
    stackCaptureMsPerStep: round(stackCaptureMs(summary) / steps, 4),
    // Idle time is no one's cost; (program) and (garbage collector) are, and stay.
    groups: summary.groups.filter(notIdle).slice(0, top).map(perStep),
    functions: summary.functions.filter(notIdle).slice(0, top).map(perStep),
  };
}

const notIdle = (entry: ProfileEntry) => entry.name !== '(idle)';

/**
 * Time in Temporal's promise hook (`init` in the worker's `workflow/vm-shared.js`), inclusive: for each promise
 * workflow code makes it builds an Error for its stack, formats the stack through the bundle's source map and keeps
 * it for the stack trace query. Only workflow threads have it.
 */
function stackCaptureMs(summary: ProfileSummary): number {
  return summary.functions
    .filter((entry) => /^init workflow\/vm-shared\.js:/.test(entry.name))
    .reduce((sum, entry) => sum + entry.totalMs, 0);
}

/**
 * Runs the section for the runtimes with a worker of their own (the floor and durable-agent). The batches without the
 * profiler alternate between the runtimes, `config.rounds` each: on a shared 2-core machine one batch swings by tens
 * of percent, so each figure is the median over a runtime's batches (every batch's steps/s and CPU stay in the row).
 * Then one profiled batch each.
 */
export async function measureProfile(
  runtimes: BenchRuntime[],
  config: ProfileConfig,
  guarded: <T>(runtime: BenchRuntime, what: () => Promise<T>) => Promise<T | undefined>,
  log: (line: string) => void,
): Promise<ProfileRow[]> {
  const spec: WorkloadSpec = { toolSteps: config.toolSteps, bytes: config.bytes };
  const steps = config.runs * modelSteps(spec);
  const measured = runtimes.flatMap((runtime) =>
    runtime.worker ? [{ runtime, withWorker: { ...runtime, worker: runtime.worker }, costs: [] as BatchCost[] }] : [],
  );
  const rounds = Math.max(1, config.rounds);
  for (let batch = 1; batch <= rounds; batch++) {
    for (const entry of measured) {
      // A runtime that failed a batch gets no more (`guarded` remembers it and returns undefined).
      log(`Profile: ${entry.runtime.label}, batch ${batch} of ${rounds}: ${config.runs} runs at once`);
      const cost = await guarded(entry.runtime, () => measureBatch(entry.withWorker, spec, config.runs));
      if (cost) entry.costs.push(cost);
    }
  }
  const rows: ProfileRow[] = [];
  for (const { runtime, withWorker, costs } of measured) {
    if (costs.length < rounds) continue;
    log(`Profile: ${runtime.label}, ${config.runs} runs at once with the CPU profiler`);
    const row = await guarded(runtime, async () => {
      const dir = mkdtempSync(join(tmpdir(), `durable-agent-bench-profile-${runtime.key}-`));
      const profiled = await profileBatch(withWorker, spec, config.runs, dir);
      const mid = (pick: (cost: BatchCost) => number) => median(costs.map(pick));
      return {
        runtime: runtime.key,
        label: runtime.label,
        concurrentRuns: config.runs,
        modelStepsPerRun: modelSteps(spec),
        batches: costs.length,
        stepsPerSecond: round(mid((c) => c.stepsPerSecond)),
        cpuMsPerStep: round(
          mid((c) => c.cpuMsPerStep),
          3,
        ),
        mainCpuMsPerStep: round(
          mid((c) => c.mainCpuMsPerStep),
          3,
        ),
        workflowCpuMsPerStep: round(
          mid((c) => c.workflowCpuMsPerStep),
          3,
        ),
        promisesPerStep: round(
          mid((c) => c.promisesPerStep),
          1,
        ),
        workflowPromisesPerStep: round(
          mid((c) => c.workflowPromisesPerStep),
          1,
        ),
        batchStepsPerSecond: costs.map((c) => round(c.stepsPerSecond)),
        batchCpuMsPerStep: costs.map((c) => round(c.cpuMsPerStep, 3)),
        profiledWallMs: round(profiled.wallMs),
        dir,
        threads: profiled.files.map((file) => summarizeThread(file, steps, config.top)),
      } satisfies ProfileRow;
    });
    if (row) rows.push(row);
  }
  return rows;
}
