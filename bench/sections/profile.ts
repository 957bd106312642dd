// Where a worker's CPU goes at scale: for the floor and durable-agent, a batch of runs started at once (200 runs of 6
// model steps in the full bench) on one worker, first without the profiler (steps/s, CPU per step and workflow-thread
// promises per step), then the same batch again with V8's CPU profiler in every thread of the worker (the main
// thread: activities, payload conversion, the SDK's side of workflow tasks; worker threads: the workflow sandbox).
// Each thread's profile is summarized: top functions and packages by self time, per model step. The `.cpuprofile`
// files stay on disk for Chrome DevTools.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize, type CpuProfile, type ProfileEntry } from '../cpu-profile.js';
import type { ChildWorker, WorkerStats } from '../child-worker.js';
import type { BenchRuntime } from '../runtimes.js';
import { round } from '../stats.js';
import { modelSteps, type WorkloadSpec } from '../workload.js';
import type { ProfileRow, ProfileThread } from '../report.js';

/** Settings of the profile section. */
export interface ProfileConfig {
  /** Runs started at once. */
  runs: number;
  toolSteps: number;
  bytes: number;
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
  /** Promises created in the workflow threads per model step (each captures a stack trace there). */
  promisesPerStep: number;
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
    // Idle time is no one's cost; (program) and (garbage collector) are, and stay.
    groups: summary.groups.filter(notIdle).slice(0, top).map(perStep),
    functions: summary.functions.filter(notIdle).slice(0, top).map(perStep),
  };
}

const notIdle = (entry: ProfileEntry) => entry.name !== '(idle)';

/** Runs the section for the runtimes with a worker of their own (the floor and durable-agent). */
export async function measureProfile(
  runtimes: BenchRuntime[],
  config: ProfileConfig,
  guarded: <T>(runtime: BenchRuntime, what: () => Promise<T>) => Promise<T | undefined>,
  log: (line: string) => void,
): Promise<ProfileRow[]> {
  const rows: ProfileRow[] = [];
  const spec: WorkloadSpec = { toolSteps: config.toolSteps, bytes: config.bytes };
  const steps = config.runs * modelSteps(spec);
  for (const runtime of runtimes) {
    const { worker } = runtime;
    if (!worker) continue;
    const withWorker = { ...runtime, worker };
    log(`Profile: ${runtime.label}, ${config.runs} runs at once without, then with, the CPU profiler`);
    const row = await guarded(runtime, async () => {
      const cost = await measureBatch(withWorker, spec, config.runs);
      const dir = mkdtempSync(join(tmpdir(), `durable-agent-bench-profile-${runtime.key}-`));
      const profiled = await profileBatch(withWorker, spec, config.runs, dir);
      return {
        runtime: runtime.key,
        label: runtime.label,
        concurrentRuns: config.runs,
        modelStepsPerRun: modelSteps(spec),
        stepsPerSecond: round(cost.stepsPerSecond),
        cpuMsPerStep: round(cost.cpuMsPerStep, 3),
        mainCpuMsPerStep: round(cost.mainCpuMsPerStep, 3),
        workflowCpuMsPerStep: round(cost.workflowCpuMsPerStep, 3),
        promisesPerStep: round(cost.promisesPerStep, 1),
        profiledWallMs: round(profiled.wallMs),
        dir,
        threads: profiled.files.map((file) => summarizeThread(file, steps, config.top)),
      } satisfies ProfileRow;
    });
    if (row) rows.push(row);
  }
  return rows;
}
