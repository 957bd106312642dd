// `npm run bench`: durable-agent against an in-process AI SDK loop and against Temporal's @temporalio/ai-sdk, side
// by side on one Temporal dev server this script starts. Four measurements (see bench/README.md): per-step time,
// the same on @temporalio/ai-sdk, concurrent runs on one worker, and history bytes as the conversation grows.
// Prints the tables and writes bench/results/latest.json and latest.md. BENCH_QUICK=1 runs a short smoke version.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/worker/dev-server.js';
import { startChildWorker, type ChildWorker } from './child-worker.js';
import { historyStats } from './history-bytes.js';
import { phaseTimes, type PhaseTimes } from './history-timing.js';
import {
  machineInfo,
  renderMarkdown,
  renderTables,
  temporalCliVersion,
  writeJson,
  type BenchReport,
  type StepBreakdownRow,
} from './report.js';
import {
  durableAgentRuntime,
  inProcessRuntime,
  temporalAiSdkRuntime,
  type BenchRuntime,
  type RunTiming,
} from './runtimes.js';
import { median, quantile, round } from './stats.js';
import { TEMPORAL_AI_SDK_DIR, ensureTemporalAiSdkInstalled } from './temporal-ai-sdk-install.js';
import { modelSteps, type WorkloadSpec } from './workload.js';

const QUICK = process.env.BENCH_QUICK === '1';
const CONFIG = {
  perStep: { toolSteps: [5, 20], bytes: 64, warmup: QUICK ? 1 : 3, reps: QUICK ? 3 : 15 },
  concurrency: { runs: QUICK ? 10 : 50, toolSteps: 5, bytes: 64, rounds: QUICK ? 1 : 3 },
  history: { toolSteps: [5, 10, 20, 40], bytes: 2048 },
};

const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function main(): Promise<void> {
  const startedAt = Date.now();
  const specs: WorkloadSpec[] = [
    ...CONFIG.perStep.toolSteps.map((toolSteps) => ({ toolSteps, bytes: CONFIG.perStep.bytes })),
    { toolSteps: CONFIG.concurrency.toolSteps, bytes: CONFIG.concurrency.bytes },
    ...CONFIG.history.toolSteps.map((toolSteps) => ({ toolSteps, bytes: CONFIG.history.bytes })),
  ];
  let theirsUnavailable = ensureTemporalAiSdkInstalled(log);

  log('Starting a Temporal dev server...');
  const server = await startDevServer();
  const workers: ChildWorker[] = [];
  try {
    const connection = await Connection.connect({ address: server.address });
    const temporal = new Client({ connection, namespace: server.namespace });
    const env = { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace };

    // Both workers bundle their workflow code at start; do it side by side.
    log('Starting the durable-agent and @temporalio/ai-sdk workers (bundling workflows)...');
    const ourQueue = `bench-durable-agent-${randomUUID()}`;
    const theirQueue = `bench-temporal-ai-sdk-${randomUUID()}`;
    const [ours, theirs] = await Promise.allSettled([
      startChildWorker({
        name: 'durable-agent',
        args: ['--import', 'tsx', `${BENCH_DIR}durable-agent-worker.ts`],
        cwd: ROOT_DIR,
        env: { ...env, TASK_QUEUE: ourQueue, BENCH_SPECS: JSON.stringify(specs) },
      }),
      theirsUnavailable
        ? Promise.reject(new Error(theirsUnavailable))
        : startChildWorker({
            name: '@temporalio/ai-sdk',
            args: ['worker.mjs'],
            cwd: TEMPORAL_AI_SDK_DIR,
            env: { ...env, TASK_QUEUE: theirQueue },
          }),
    ]);
    if (ours.status === 'fulfilled') workers.push(ours.value);
    if (theirs.status === 'fulfilled') workers.push(theirs.value);
    if (ours.status === 'rejected') throw ours.reason;
    if (theirs.status === 'rejected') {
      theirsUnavailable = errorText(theirs.reason);
      log(`@temporalio/ai-sdk cannot run here: ${theirsUnavailable}`);
    }

    const runtimes: BenchRuntime[] = [inProcessRuntime(), durableAgentRuntime(temporal, ourQueue)];
    if (!theirsUnavailable) runtimes.push(temporalAiSdkRuntime(temporal, theirQueue));
    const report: BenchReport = {
      date: new Date().toISOString(),
      command: 'npm run bench',
      quick: QUICK,
      config: CONFIG,
      machine: machineInfo(),
      versions: {
        durableAgent: packageVersions(),
        temporalAiSdk: theirs.status === 'fulfilled' ? theirs.value.info.versions : undefined,
        temporalCli: temporalCliVersion(),
      },
      temporalAiSdk: theirsUnavailable ? { available: false, reason: theirsUnavailable } : { available: true },
      perStep: [],
      stepBreakdown: [],
      concurrency: [],
      history: [],
      durationSeconds: 0,
    };

    // A runtime that fails mid-bench is reported and dropped; the others go on.
    const failed = new Map<string, string>();
    const guarded = async <T>(runtime: BenchRuntime, what: () => Promise<T>): Promise<T | undefined> => {
      if (failed.has(runtime.key)) return undefined;
      try {
        return await what();
      } catch (error) {
        if (runtime.key === 'durableAgent') throw error;
        failed.set(runtime.key, errorText(error));
        log(`${runtime.label} failed: ${errorText(error)}`);
        return undefined;
      }
    };

    // 1 + 2. Per-step time. Rounds interleave the runtimes so drift (GC, server compaction) hits all alike.
    for (const toolSteps of CONFIG.perStep.toolSteps) {
      const spec = { toolSteps, bytes: CONFIG.perStep.bytes };
      log(
        `Per-step: ${toolSteps} tool steps, ${CONFIG.perStep.warmup} warm-up + ${CONFIG.perStep.reps} timed runs each`,
      );
      const timings = new Map<string, RunTiming[]>(runtimes.map((r) => [r.key, []]));
      for (let round = 0; round < CONFIG.perStep.warmup + CONFIG.perStep.reps; round++) {
        for (const runtime of runtimes) {
          const timing = await guarded(runtime, () => runtime.run(spec));
          if (timing && round >= CONFIG.perStep.warmup) timings.get(runtime.key)!.push(timing);
        }
      }
      for (const runtime of runtimes) {
        const runs = timings.get(runtime.key)!;
        const values = runs.map((timing) => timing.ms);
        if (values.length === 0) continue;
        if (toolSteps === Math.max(...CONFIG.perStep.toolSteps) && runtime.key !== 'inProcess') {
          report.stepBreakdown.push(await stepBreakdown(temporal, runtime, spec, runs));
        }
        report.perStep.push({
          runtime: runtime.key,
          label: runtime.label,
          toolSteps,
          modelSteps: modelSteps(spec),
          runs: values.length,
          medianRunMs: round(median(values)),
          p95RunMs: round(quantile(values, 0.95)),
          msPerStep: round(median(values) / modelSteps(spec), 3),
        });
      }
    }

    // 3. Concurrent runs on one worker.
    for (const runtime of runtimes.filter((r) => r.key !== 'inProcess')) {
      const spec = { toolSteps: CONFIG.concurrency.toolSteps, bytes: CONFIG.concurrency.bytes };
      log(
        `Concurrency: ${runtime.label}, ${CONFIG.concurrency.runs} runs at once x ${CONFIG.concurrency.rounds} rounds`,
      );
      const rounds: { wallMs: number; latencies: number[] }[] = [];
      for (let i = 0; i < CONFIG.concurrency.rounds; i++) {
        const measured = await guarded(runtime, async () => {
          const startedAt = performance.now();
          const runs: RunTiming[] = await Promise.all(
            Array.from({ length: CONFIG.concurrency.runs }, () => runtime.run(spec)),
          );
          return { wallMs: performance.now() - startedAt, latencies: runs.map((r) => r.ms) };
        });
        if (measured) rounds.push(measured);
      }
      if (rounds.length === 0) continue;
      const wallMs = median(rounds.map((r) => r.wallMs));
      const latencies = rounds.flatMap((r) => r.latencies);
      report.concurrency.push({
        runtime: runtime.key,
        label: runtime.label,
        concurrentRuns: CONFIG.concurrency.runs,
        modelStepsPerRun: modelSteps(spec),
        rounds: rounds.length,
        medianWallMs: round(wallMs),
        runsPerSecond: round((CONFIG.concurrency.runs / wallMs) * 1000),
        stepsPerSecond: round(((CONFIG.concurrency.runs * modelSteps(spec)) / wallMs) * 1000),
        p50LatencyMs: round(quantile(latencies, 0.5)),
        p95LatencyMs: round(quantile(latencies, 0.95)),
      });
    }

    // 4. History bytes as the conversation grows.
    for (const runtime of runtimes.filter((r) => r.transcript !== undefined)) {
      for (const toolSteps of CONFIG.history.toolSteps) {
        const spec = { toolSteps, bytes: CONFIG.history.bytes };
        log(`History: ${runtime.label}, ${toolSteps} tool steps with ${spec.bytes}-byte outputs`);
        const row = await guarded(runtime, async () => {
          const { workflowId } = await runtime.run(spec);
          const transcript = await runtime.transcript!(workflowId!);
          const stats = await historyStats(temporal, workflowId!);
          const transcriptBytes = Buffer.byteLength(JSON.stringify(transcript));
          return {
            runtime: runtime.key,
            label: runtime.label,
            toolSteps,
            modelSteps: modelSteps(spec),
            toolOutputBytes: spec.bytes,
            executions: stats.executions,
            events: stats.events,
            payloadBytes: stats.payloadBytes,
            transcriptBytes,
            ratio: round(stats.payloadBytes / transcriptBytes, 3),
            payloadBytesByKind: stats.payloadBytesByKind,
          };
        });
        if (row) report.history.push(row);
      }
    }

    if (failed.size > 0) report.failures = Object.fromEntries(failed);
    report.durationSeconds = round((Date.now() - startedAt) / 1000, 1);
    report.machine.loadAverage.end = round(os.loadavg()[0]!, 2);
    process.stdout.write(renderTables(report));
    const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(resultsDir, { recursive: true });
    await writeJson(`${resultsDir}latest.json`, report);
    writeFileSync(`${resultsDir}latest.md`, renderMarkdown(report));
    log(`Wrote bench/results/latest.json and bench/results/latest.md (${report.durationSeconds} s).`);
    await connection.close();
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await server.stop();
  }
}

/** Median time per model step in each phase of the given durable runs, from their histories' event times. */
async function stepBreakdown(
  temporal: Client,
  runtime: BenchRuntime,
  spec: WorkloadSpec,
  runs: RunTiming[],
): Promise<StepBreakdownRow> {
  const steps = modelSteps(spec);
  const perRun = await Promise.all(
    runs.map(async (run) => ({ ms: run.ms, phases: await phaseTimes(temporal, run.workflowId!) })),
  );
  const perStep = (pick: (run: (typeof perRun)[number]) => number) => round(median(perRun.map(pick)) / steps, 2);
  const inHistory = (phases: PhaseTimes) =>
    phases.workflowTaskWait +
    phases.workflowTaskRun +
    phases.activityWait +
    phases.modelActivityRun +
    phases.toolActivityRun +
    phases.otherActivityRun;
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

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Versions of the packages durable-agent ran on, from its installed manifests. */
function packageVersions(): Record<string, string> {
  const names = ['@temporalio/worker', '@temporalio/client', 'ai', '@ai-sdk/provider'];
  return Object.fromEntries(names.map((name) => [name, readVersion(name)]));
}

function readVersion(name: string): string {
  try {
    const manifest = fileURLToPath(new URL(`../node_modules/${name}/package.json`, import.meta.url));
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

await main();
