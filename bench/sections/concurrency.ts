// Many runs at once on one worker: for each level (1 to 200 runs started together), each runtime runs its batch in
// turn; runs/s, steps/s and the run-time distribution. The worker's CPU time over the batch is read too.
import type { BenchRuntime, RunTiming } from '../runtimes.js';
import { quantile, round } from '../stats.js';
import { modelSteps, type WorkloadSpec } from '../workload.js';
import type { ConcurrencyRow } from '../report.js';

/** Settings of the concurrency section. */
export interface ConcurrencyConfig {
  levels: number[];
  toolSteps: number;
  bytes: number;
}

/** Runs the section for the durable runtimes; a runtime that fails is reported through `guarded` and left out. */
export async function measureConcurrency(
  runtimes: BenchRuntime[],
  config: ConcurrencyConfig,
  guarded: <T>(runtime: BenchRuntime, what: () => Promise<T>) => Promise<T | undefined>,
  log: (line: string) => void,
): Promise<ConcurrencyRow[]> {
  const rows: ConcurrencyRow[] = [];
  const spec: WorkloadSpec = { toolSteps: config.toolSteps, bytes: config.bytes };
  const steps = modelSteps(spec);
  for (const level of config.levels) {
    log(`Concurrency: ${level} runs at once of each runtime (${steps} model steps each)`);
    for (const runtime of runtimes) {
      const measured = await guarded(runtime, async () => {
        const before = await runtime.worker?.stats();
        const startedAt = performance.now();
        const runs: RunTiming[] = await Promise.all(Array.from({ length: level }, () => runtime.run(spec)));
        const wallMs = performance.now() - startedAt;
        const after = await runtime.worker?.stats();
        const cpuMs =
          before && after ? after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs : undefined;
        return { wallMs, latencies: runs.map((r) => r.ms), cpuMs };
      });
      if (!measured) continue;
      rows.push({
        runtime: runtime.key,
        label: runtime.label,
        concurrentRuns: level,
        modelStepsPerRun: steps,
        wallMs: round(measured.wallMs),
        stepsPerSecond: round(((level * steps) / measured.wallMs) * 1000),
        p50RunMs: round(quantile(measured.latencies, 0.5)),
        p95RunMs: round(quantile(measured.latencies, 0.95)),
        ...(measured.cpuMs !== undefined ? { cpuMsPerStep: round(measured.cpuMs / (level * steps), 3) } : {}),
      });
    }
  }
  return rows;
}
