// `npm run bench`: durable-agent against the floor (bare Temporal with no-op activities), an in-process AI SDK loop
// and Temporal's @temporalio/ai-sdk, side by side on one Temporal dev server this script starts. Sections (see
// bench/README.md): per-step time with worker CPU and fixed costs, local tools, a concurrency curve, memory per
// waiting run and approval latency, history bytes. Prints the tables and writes bench/results/latest.{json,md}.
//   npm run bench                     everything (about 20 minutes on 2 cores)
//   npm run bench -- --quick          a short smoke run of everything (BENCH_QUICK=1 too)
//   npm run bench -- --only=perStep,waiting   some sections (perStep, concurrency, waiting, history, profile)
//   npm run bench -- --runtimes=floor,durableAgent --reps=30   some runtimes, more timed runs per length
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/worker/dev-server.js';
import { startChildWorker, type ChildWorker } from './child-worker.js';
import {
  machineInfo,
  renderMarkdown,
  renderTables,
  temporalCliVersion,
  writeJson,
  type BenchReport,
} from './report.js';
import {
  RUNTIME_LABELS,
  WAITING_SPEC,
  durableAgentRuntime,
  floorRuntime,
  inProcessRuntime,
  temporalAiSdkRuntime,
  type BenchRuntime,
  type RuntimeKey,
} from './runtimes.js';
import { measureConcurrency } from './sections/concurrency.js';
import { measureHistory } from './sections/history.js';
import { measurePerStep } from './sections/per-step.js';
import { measureProfile } from './sections/profile.js';
import { measureWaiting } from './sections/waiting.js';
import { round } from './stats.js';
import { TEMPORAL_AI_SDK_DIR, ensureTemporalAiSdkInstalled } from './temporal-ai-sdk-install.js';
import type { WorkloadSpec } from './workload.js';

const SECTIONS = ['perStep', 'concurrency', 'history', 'waiting', 'profile'] as const;
type Section = (typeof SECTIONS)[number];

const args = process.argv.slice(2);
const QUICK = process.env.BENCH_QUICK === '1' || args.includes('--quick');
const only = args.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const selected = new Set<Section>(only ? (only.split(',') as Section[]) : SECTIONS);
const runtimesArg = args.find((arg) => arg.startsWith('--runtimes='))?.slice('--runtimes='.length);
const wanted = (key: RuntimeKey) => !runtimesArg || runtimesArg.split(',').includes(key);
const repsArg = args.find((arg) => arg.startsWith('--reps='))?.slice('--reps='.length);
for (const section of selected) {
  if (!SECTIONS.includes(section)) throw new Error(`Unknown section '${section}'; known: ${SECTIONS.join(', ')}.`);
}

const CONFIG = {
  perStep: { toolSteps: [5, 20], bytes: 64, warmup: QUICK ? 1 : 3, reps: repsArg ? Number(repsArg) : QUICK ? 3 : 15 },
  concurrency: { levels: QUICK ? [1, 10, 50] : [1, 10, 50, 100, 200], toolSteps: 5, bytes: 64 },
  history: { toolSteps: [5, 10, 20, 40], bytes: 2048 },
  // The same workload as the concurrency section's, so the same agent serves it.
  profile: { runs: QUICK ? 20 : 200, toolSteps: 5, bytes: 64, rounds: QUICK ? 1 : 5, top: 15 },
  waiting: {
    ladder: QUICK ? [1, 50, 200] : [1, 100, 1000, 5000],
    // About 1.5 MB per waiting run: 5,000 would not fit a worker's default 4 GB heap.
    ladderCaps: { temporalAiSdk: 1000 },
    approvalRuns: QUICK ? 200 : 1000,
    smallCache: QUICK ? 50 : 250,
    approvalConcurrency: 10,
  },
};

const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** Every workload durable-agent's worker hosts an agent for. */
function benchSpecs(): WorkloadSpec[] {
  const { perStep, concurrency, history, profile } = CONFIG;
  return [
    ...perStep.toolSteps.flatMap((toolSteps) => [
      { toolSteps, bytes: perStep.bytes },
      { toolSteps, bytes: perStep.bytes, localTool: true },
    ]),
    { toolSteps: concurrency.toolSteps, bytes: concurrency.bytes },
    { toolSteps: profile.toolSteps, bytes: profile.bytes },
    ...history.toolSteps.map((toolSteps) => ({ toolSteps, bytes: history.bytes })),
    WAITING_SPEC,
  ];
}

type WorkerKind = 'durableAgent' | 'floor' | 'temporalAiSdk';

async function main(): Promise<void> {
  const startedAt = Date.now();
  let theirsUnavailable = ensureTemporalAiSdkInstalled(log);

  log('Starting a Temporal dev server...');
  const server = await startDevServer();
  const workers: ChildWorker[] = [];
  const env = { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace };
  const startWorker = (kind: WorkerKind, taskQueue: string, maxCachedWorkflows?: number) =>
    startChildWorker({
      name: RUNTIME_LABELS[kind],
      ...(kind === 'temporalAiSdk'
        ? { args: ['worker.mjs'], cwd: TEMPORAL_AI_SDK_DIR }
        : {
            args: [
              '--import',
              'tsx',
              kind === 'floor' ? `${BENCH_DIR}floor/worker.ts` : `${BENCH_DIR}durable-agent-worker.ts`,
            ],
            cwd: ROOT_DIR,
          }),
      env: {
        ...env,
        TASK_QUEUE: taskQueue,
        BENCH_SPECS: JSON.stringify(benchSpecs()),
        ...(maxCachedWorkflows !== undefined ? { BENCH_MAX_CACHED_WORKFLOWS: String(maxCachedWorkflows) } : {}),
      },
    }).then((worker) => {
      workers.push(worker);
      return worker;
    });
  const stopWorker = async (worker: ChildWorker) => {
    workers.splice(workers.indexOf(worker), 1);
    await worker.stop();
  };
  try {
    const connection = await Connection.connect({ address: server.address });
    const temporal = new Client({ connection, namespace: server.namespace });
    const report: BenchReport = {
      date: new Date().toISOString(),
      command: `npm run bench${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`,
      quick: QUICK,
      config: CONFIG,
      machine: machineInfo(),
      server: { temporalCli: temporalCliVersion(), args: server.process.spawnargs.slice(1) },
      versions: { durableAgent: packageVersions() },
      defaultCacheSize: defaultCacheSize(),
      temporalAiSdk: { available: true },
      load: [],
      perStep: [],
      breakdown: [],
      concurrency: [],
      memory: [],
      approvals: [],
      history: [],
      profile: [],
      durationSeconds: 0,
    };
    const sectionStarts = (section: string) => report.load.push({ section, loadAverage: round(os.loadavg()[0]!, 2) });

    // A runtime that fails mid-bench is reported and dropped; the others go on. durable-agent failing fails it all.
    const failed = new Map<string, string>();
    const guardedKey = async <T>(key: RuntimeKey, what: () => Promise<T>): Promise<T | undefined> => {
      if (failed.has(key)) return undefined;
      try {
        return await what();
      } catch (error) {
        if (key === 'durableAgent' || key === 'durableAgentLocal') throw error;
        failed.set(key, errorText(error));
        log(`${RUNTIME_LABELS[key]} failed: ${errorText(error)}`);
        return undefined;
      }
    };
    const guarded = <T>(runtime: BenchRuntime, what: () => Promise<T>) => guardedKey(runtime.key, what);

    if (['perStep', 'concurrency', 'history', 'profile'].some((s) => selected.has(s as Section))) {
      // Each worker bundles its workflow code at start; do it side by side.
      log('Starting the durable-agent, floor and @temporalio/ai-sdk workers (bundling workflows)...');
      const queues = {
        ours: `bench-da-${randomUUID()}`,
        floor: `bench-floor-${randomUUID()}`,
        theirs: `bench-tai-${randomUUID()}`,
      };
      const [ours, floor, theirs] = await Promise.allSettled([
        startWorker('durableAgent', queues.ours),
        startWorker('floor', queues.floor),
        theirsUnavailable || !wanted('temporalAiSdk')
          ? Promise.reject(new Error(theirsUnavailable ?? 'not selected (--runtimes)'))
          : startWorker('temporalAiSdk', queues.theirs),
      ]);
      if (ours.status === 'rejected') throw ours.reason;
      if (floor.status === 'rejected') throw floor.reason;
      if (theirs.status === 'rejected') {
        if (wanted('temporalAiSdk')) {
          theirsUnavailable = errorText(theirs.reason);
          log(`@temporalio/ai-sdk cannot run here: ${theirsUnavailable}`);
        }
      } else {
        report.versions.temporalAiSdk = theirs.value.info.versions;
      }
      const durableAgent = durableAgentRuntime(temporal, queues.ours, ours.value);
      const floorRun = floorRuntime(temporal, queues.floor, floor.value);
      const theirsRun =
        theirs.status === 'fulfilled' ? temporalAiSdkRuntime(temporal, queues.theirs, theirs.value) : undefined;
      const main = [floorRun, durableAgent, ...(theirsRun ? [theirsRun] : [])].filter((r) => wanted(r.key));

      if (selected.has('perStep')) {
        sectionStarts('perStep');
        const runtimes = [
          inProcessRuntime(),
          ...main,
          floorRuntime(temporal, queues.floor, floor.value, { localTool: true }),
          durableAgentRuntime(temporal, queues.ours, ours.value, { localTool: true }),
        ].filter((r) => wanted(r.key));
        const { rows, breakdown } = await measurePerStep(temporal, runtimes, CONFIG.perStep, guarded, log);
        report.perStep = rows;
        report.breakdown = breakdown;
      }
      if (selected.has('concurrency')) {
        sectionStarts('concurrency');
        report.concurrency = await measureConcurrency(main, CONFIG.concurrency, guarded, log);
      }
      if (selected.has('history')) {
        sectionStarts('history');
        report.history = await measureHistory(temporal, main, CONFIG.history, guarded, log);
      }
      if (selected.has('profile')) {
        sectionStarts('profile');
        const profiled = [floorRun, durableAgent].filter((r) => wanted(r.key));
        report.profile = await measureProfile(profiled, CONFIG.profile, guarded, log);
      }
      await Promise.all(
        [ours.value, floor.value, ...(theirs.status === 'fulfilled' ? [theirs.value] : [])].map(stopWorker),
      );
    }

    if (selected.has('waiting')) {
      sectionStarts('waiting');
      const keys: Array<'floor' | 'durableAgent' | 'temporalAiSdk'> = ['floor', 'durableAgent'];
      if (!theirsUnavailable) keys.push('temporalAiSdk');
      keys.splice(0, keys.length, ...keys.filter(wanted));
      const { memory, approvals } = await measureWaiting(
        temporal,
        keys,
        async (key, maxCachedWorkflows) => {
          const taskQueue = `bench-wait-${key}-${randomUUID()}`;
          const worker = await startWorker(key, taskQueue, maxCachedWorkflows);
          if (key === 'floor') return floorRuntime(temporal, taskQueue, worker);
          if (key === 'durableAgent') return durableAgentRuntime(temporal, taskQueue, worker);
          report.versions.temporalAiSdk ??= worker.info.versions;
          return temporalAiSdkRuntime(temporal, taskQueue, worker);
        },
        CONFIG.waiting,
        guardedKey,
        log,
      );
      report.memory = memory;
      report.approvals = approvals;
    }

    if (theirsUnavailable) report.temporalAiSdk = { available: false, reason: theirsUnavailable };
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

/** The Temporal SDK's default `maxCachedWorkflows` for this machine (reuseV8Context: 600 runs per GiB of heap). */
function defaultCacheSize(): number {
  const heapMiB = v8.getHeapStatistics().heap_size_limit / 2 ** 20;
  return Math.max(Math.floor(Math.max(heapMiB - 200, 0) * (600 / 1024)), 10);
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
