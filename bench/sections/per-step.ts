// Per-step time, worker CPU per step and the fixed cost of a run: every runtime runs the same workloads, run by run
// interleaved (drift, GC and other work on the machine hit all alike), and each durable run's worker CPU time is
// read before and after it.
import type { Client } from '@temporalio/client';
import { phaseTimes, type PhaseTimes } from '../history-timing.js';
import type { BenchRuntime, RunTiming } from '../runtimes.js';
import { median, quantile, round } from '../stats.js';
import { modelSteps, type WorkloadSpec } from '../workload.js';
import type { BreakdownRow, PerStepRow } from '../report.js';

/** Settings of the per-step section. */
export interface PerStepConfig {
  toolSteps: number[];
  bytes: number;
  warmup: number;
  reps: number;
}

interface TimedRun extends RunTiming {
  /** Worker CPU time (user + system) the run took, in ms: the whole process, its main thread, its workflow threads. */
  cpuMs?: number;
  mainCpuMs?: number;
  threadCpuMs?: number;
}

/** Runs the section; a runtime that fails is reported through `guarded` and left out. */
export async function measurePerStep(
  temporal: Client,
  runtimes: BenchRuntime[],
  config: PerStepConfig,
  guarded: <T>(runtime: BenchRuntime, what: () => Promise<T>) => Promise<T | undefined>,
  log: (line: string) => void,
): Promise<{ rows: PerStepRow[]; breakdown: BreakdownRow[] }> {
  const rows: PerStepRow[] = [];
  const breakdown: BreakdownRow[] = [];
  for (const toolSteps of config.toolSteps) {
    const spec: WorkloadSpec = { toolSteps, bytes: config.bytes };
    log(`Per-step: ${toolSteps} tool steps, ${config.warmup} warm-up + ${config.reps} timed runs of each runtime`);
    const timings = new Map<string, TimedRun[]>(runtimes.map((r) => [r.key, []]));
    for (let round = 0; round < config.warmup + config.reps; round++) {
      for (const runtime of runtimes) {
        const timing = await guarded(runtime, () => timedRun(runtime, spec));
        if (timing && round >= config.warmup) timings.get(runtime.key)!.push(timing);
      }
    }
    for (const runtime of runtimes) {
      const runs = timings.get(runtime.key)!;
      if (runs.length === 0) continue;
      const steps = modelSteps(spec);
      const values = runs.map((run) => run.ms);
      const phases = runtime.key === 'inProcess' ? [] : await runPhases(temporal, runs);
      const perStep = (pick: (run: TimedRun) => number | undefined) =>
        runs.flatMap((run) => (pick(run) === undefined ? [] : [pick(run)! / steps]));
      const cpu = perStep((run) => run.cpuMs);
      rows.push({
        runtime: runtime.key,
        label: runtime.label,
        toolSteps,
        modelSteps: steps,
        runs: values.length,
        medianRunMs: round(median(values)),
        p95RunMs: round(quantile(values, 0.95)),
        msPerStep: round(median(values) / steps, 3),
        ...(cpu.length > 0
          ? {
              cpuMsPerStep: round(median(cpu), 3),
              mainCpuMsPerStep: round(median(perStep((run) => run.mainCpuMs)), 3),
              workflowCpuMsPerStep: round(median(perStep((run) => run.threadCpuMs)), 3),
            }
          : {}),
        ...(phases.length > 0
          ? {
              startToFirstModelMs: round(median(phases.map((p) => p.startToFirstModel))),
              lastToolToEndMs: round(median(phases.map((p) => p.lastToolToEnd))),
            }
          : {}),
      });
      if (phases.length > 0 && toolSteps === Math.max(...config.toolSteps)) {
        breakdown.push(stepBreakdown(runtime, spec, runs, phases));
      }
    }
  }
  return { rows, breakdown };
}

async function timedRun(runtime: BenchRuntime, spec: WorkloadSpec): Promise<TimedRun> {
  const before = await runtime.worker?.stats();
  const timing = await runtime.run(spec);
  const after = await runtime.worker?.stats();
  if (!before || !after) return timing;
  return {
    ...timing,
    cpuMs: after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs,
    mainCpuMs: after.mainCpuMs - before.mainCpuMs,
    threadCpuMs: after.threadCpuMs - before.threadCpuMs,
  };
}

async function runPhases(temporal: Client, runs: TimedRun[]): Promise<PhaseTimes[]> {
  return await Promise.all(runs.map(async (run) => await phaseTimes(temporal, run.workflowId!)));
}

/** Median time per model step in each phase of the given durable runs, from their histories' event times. */
function stepBreakdown(
  runtime: BenchRuntime,
  spec: WorkloadSpec,
  runs: TimedRun[],
  phases: PhaseTimes[],
): BreakdownRow {
  const steps = modelSteps(spec);
  const perRun = runs.map((run, i) => ({ ms: run.ms, phases: phases[i]! }));
  const perStep = (pick: (run: (typeof perRun)[number]) => number) => round(median(perRun.map(pick)) / steps, 2);
  const inHistory = (p: PhaseTimes) =>
    p.workflowTaskWait +
    p.workflowTaskRun +
    p.activityWait +
    p.modelActivityRun +
    p.toolActivityRun +
    p.otherActivityRun;
  return {
    runtime: runtime.key,
    label: runtime.label,
    toolSteps: spec.toolSteps,
    runs: runs.length,
    workflowTasksPerStep: round(median(perRun.map((r) => r.phases.workflowTasks)) / steps, 2),
    activitiesPerStep: round(median(perRun.map((r) => r.phases.activities)) / steps, 2),
    msPerStep: {
      workflowTaskWait: perStep((r) => r.phases.workflowTaskWait),
      workflowTaskRun: perStep((r) => r.phases.workflowTaskRun),
      activityWait: perStep((r) => r.phases.activityWait),
      modelActivityRun: perStep((r) => r.phases.modelActivityRun),
      toolActivityRun: perStep((r) => r.phases.toolActivityRun),
      otherActivityRun: perStep((r) => r.phases.otherActivityRun),
      client: perStep((r) => r.ms - inHistory(r.phases)),
      total: perStep((r) => r.ms),
    },
  };
}
