// `npm run bench:streaming`: what live model deltas deliver and cost, on one dev server this script starts, with
// durable-agent and Temporal's @temporalio/ai-sdk side by side, each worker in a child process of its own
// (bench/streaming/worker.ts, bench/temporal-ai-sdk/worker.mjs). This process only starts runs and watches them.
// durable-agent runs twice, on each live transport: its runs' own Workflow Streams log, and Redis (a redis-server
// this script starts; a second worker process with DURABLE_AGENT_REDIS_URL), in sections 1 and 3.
// Sections (bench/README.md says what each row measures):
//   1. durable-agent against @temporalio/ai-sdk's streaming: delivery latency, history and worker CPU per step.
//   2. The batch interval: later-token latency and cost per streamed step at 50, 100, 250 and 500 ms.
//   3. Watchers: 1, 10 and 50 runs with 1 and 3 watchers (one shared subscription, or separate ones).
//   4. Cost: one step of 500 tokens over 10 s, streamed and not, watched and not, on each live transport; Temporal
//      Cloud actions (estimated from history) and Redis commands (the bench's redis-server's INFO commandstats).
// Writes bench/results/streaming.{json,md}.
//   npm run bench:streaming                 everything (about 10 minutes on 2 cores)
//   npm run bench:streaming -- --quick      a short smoke run (BENCH_QUICK=1 too)
//   npm run bench:streaming -- --only=sweep,cost   some sections (headToHead, sweep, watchers, cost); the others are
//                                                  kept from the last results, the report says from when
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { Redis } from 'ioredis';
import { DEFAULT_DELTA_INTERVAL_MS } from '../src/protocol/run-stream.js';
import { startDevServer } from '../src/worker/dev-server.js';
import { startRedis, type TestRedis } from '../test/support/redis.js';
import { startChildWorker, type ChildWorker } from './child-worker.js';
import { machineInfo, temporalCliVersion, writeJson } from './report.js';
import { round } from './stats.js';
import { measureCost } from './streaming/cost.js';
import { measureHeadToHead } from './streaming/head-to-head.js';
import { renderStreamingMarkdown, type StreamingReport } from './streaming/report.js';
import { durableAgentRuntime, temporalAiSdkRuntime, type StreamingRuntime } from './streaming/runtimes.js';
import { measureSweep } from './streaming/sweep.js';
import { measureWatchers } from './streaming/watchers.js';
import { STAMP_BYTES, type WriterSpec } from './streaming/writer.js';
import { TEMPORAL_AI_SDK_DIR, ensureTemporalAiSdkInstalled } from './temporal-ai-sdk-install.js';

const SECTIONS = ['headToHead', 'sweep', 'watchers', 'cost'] as const;
type Section = (typeof SECTIONS)[number];

const args = process.argv.slice(2);
const QUICK = process.env.BENCH_QUICK === '1' || args.includes('--quick');
const only = args.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const selected = new Set<Section>(only ? (only.split(',') as Section[]) : SECTIONS);
for (const section of selected) {
  if (!SECTIONS.includes(section)) throw new Error(`Unknown section '${section}'; known: ${SECTIONS.join(', ')}.`);
}
const CONFIG: StreamingReport['config'] = {
  // A model writing 50 tokens a second.
  delivery: { tokens: QUICK ? 40 : 100, delayMs: 20 },
  headToHead: { reps: QUICK ? 2 : 10 },
  watchers: { levels: QUICK ? [1, 10] : [1, 10, 50], oneRunBatches: QUICK ? 1 : 5 },
  sweep: { intervals: [50, 100, 250, 500], tokens: QUICK ? 100 : 500, delayMs: 20, reps: QUICK ? 1 : 3 },
  // Issue 19's step: 500 tokens over 10 s.
  cost: { tokens: QUICK ? 100 : 500, delayMs: 20, reps: QUICK ? 1 : 3 },
};
/** Watchers of one run at most (section 3), each with a Temporal client and connection of its own. */
const MAX_WATCHERS = 3;

const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));
const log = (line: string) => process.stderr.write(`[bench:streaming] ${line}\n`);

/** The writers: the delivery sections' stamped step, the sweep's and the cost section's steps and their plain twins. */
function writers() {
  const { delivery, sweep, cost } = CONFIG;
  const stamped = (tokens: number, delayMs: number): WriterSpec => ({
    name: `stamped-${tokens}x${delayMs}`,
    kind: 'stamped',
    tokens,
    delayMs,
  });
  return {
    delivery: stamped(delivery.tokens, delivery.delayMs),
    sweep: stamped(sweep.tokens, sweep.delayMs),
    // The sweep's step not streamed, with a final message as long as the stamps'.
    sweepPlain: {
      name: `plain-${sweep.tokens}x${sweep.delayMs}-stamp-sized`,
      kind: 'plain',
      tokens: sweep.tokens,
      delayMs: sweep.delayMs,
      textBytes: sweep.tokens * STAMP_BYTES,
    } satisfies WriterSpec,
    costStreamed: {
      name: `letters-${cost.tokens}x${cost.delayMs}`,
      kind: 'letters',
      tokens: cost.tokens,
      delayMs: cost.delayMs,
    } satisfies WriterSpec,
    costPlain: {
      name: `plain-${cost.tokens}x${cost.delayMs}`,
      kind: 'plain',
      tokens: cost.tokens,
      delayMs: cost.delayMs,
    } satisfies WriterSpec,
  };
}

/**
 * A run of some sections keeps the others from the last results (if their configuration matches), so
 * bench/results/streaming.md stays whole; the report names the sections kept and the run they come from.
 */
function keepUnselected(report: StreamingReport, path: string): void {
  let last: StreamingReport;
  try {
    last = JSON.parse(readFileSync(path, 'utf8')) as StreamingReport;
  } catch {
    return;
  }
  if (last.quick !== report.quick) return;
  const kept: Section[] = [];
  for (const section of SECTIONS) {
    if (selected.has(section) || last[section] === undefined) continue;
    if (JSON.stringify(last.config[section]) !== JSON.stringify(report.config[section])) continue;
    Object.assign(report, { [section]: last[section] });
    if (section === 'cost' && last.costRedis) report.costRedis = last.costRedis;
    kept.push(section);
  }
  if (kept.length === 0) return;
  report.kept = { sections: kept, date: last.kept?.date ?? last.date, command: last.kept?.command ?? last.command };
  if (kept.includes('headToHead') || kept.includes('watchers')) {
    report.temporalAiSdk = last.temporalAiSdk;
    if (last.versions.temporalAiSdk) report.versions.temporalAiSdk = last.versions.temporalAiSdk;
  }
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  // Only the head-to-head and watchers sections run @temporalio/ai-sdk.
  let theirsUnavailable =
    selected.has('headToHead') || selected.has('watchers')
      ? ensureTemporalAiSdkInstalled(log)
      : 'not selected (--only)';
  log('Starting a Temporal dev server...');
  const server = await startDevServer();
  const workers: ChildWorker[] = [];
  const connections: Connection[] = [];
  // durable-agent on Redis too (issue 32): a redis-server of the bench's own (scripts/install-redis.mjs installs it).
  let redis: TestRedis | undefined;
  let counter: Redis | undefined;
  try {
    const specs = writers();
    const env = { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace };
    const queues = {
      ours: `bench-stream-da-${randomUUID()}`,
      oursRedis: `bench-stream-da-redis-${randomUUID()}`,
      theirs: `bench-stream-tai-${randomUUID()}`,
    };
    log('Starting redis-server...');
    redis = await startRedis();
    const live = { url: redis.url, key: randomUUID() };
    counter = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const redisCommands = commandCounter(counter);
    log(
      'Starting the durable-agent (Workflow Streams and Redis) and @temporalio/ai-sdk workers (bundling workflows)...',
    );
    const writersEnv = { BENCH_WRITERS: JSON.stringify(Object.values(specs)) };
    const [ours, oursRedis, theirs] = await Promise.allSettled([
      startChildWorker({
        name: 'durable-agent',
        args: ['--import', 'tsx', `${BENCH_DIR}streaming/worker.ts`],
        cwd: ROOT_DIR,
        // Empty: this worker streams through its runs' own Workflow Streams log whatever the shell says.
        env: { ...env, ...writersEnv, TASK_QUEUE: queues.ours, DURABLE_AGENT_REDIS_URL: '' },
      }),
      startChildWorker({
        name: 'durable-agent, Redis',
        args: ['--import', 'tsx', `${BENCH_DIR}streaming/worker.ts`],
        cwd: ROOT_DIR,
        env: {
          ...env,
          ...writersEnv,
          TASK_QUEUE: queues.oursRedis,
          DURABLE_AGENT_REDIS_URL: live.url,
          DURABLE_AGENT_STREAM_KEY: live.key,
        },
      }),
      theirsUnavailable
        ? Promise.reject(new Error(theirsUnavailable))
        : startChildWorker({
            name: '@temporalio/ai-sdk',
            args: ['worker.mjs'],
            cwd: TEMPORAL_AI_SDK_DIR,
            env: { ...env, TASK_QUEUE: queues.theirs },
          }),
    ]);
    for (const started of [ours, oursRedis, theirs]) if (started.status === 'fulfilled') workers.push(started.value);
    if (ours.status === 'rejected') throw ours.reason;
    if (oursRedis.status === 'rejected') throw oursRedis.reason;
    if (theirs.status === 'rejected') {
      theirsUnavailable = theirs.reason instanceof Error ? theirs.reason.message : String(theirs.reason);
      log(`@temporalio/ai-sdk cannot run here: ${theirsUnavailable}`);
    }

    for (let i = 0; i < MAX_WATCHERS; i++) connections.push(await Connection.connect({ address: server.address }));
    const clients = connections.map((connection) => new Client({ connection, namespace: server.namespace }));
    const history = clients[0]!;
    // Both count the bench's redis-server's commands: Workflow Streams' batches should cost it none.
    const durableAgent = durableAgentRuntime(clients, queues.ours, ours.value, undefined, redisCommands);
    // Clients of their own: a Temporal client reads runs through the live transport its AgentClient was given.
    const redisClients = connections.map((connection) => new Client({ connection, namespace: server.namespace }));
    const durableAgentRedis = durableAgentRuntime(redisClients, queues.oursRedis, oursRedis.value, live, redisCommands);
    const temporalAiSdk: StreamingRuntime[] =
      theirs.status === 'fulfilled'
        ? [
            temporalAiSdkRuntime(clients, queues.theirs, theirs.value),
            temporalAiSdkRuntime(clients, queues.theirs, theirs.value, 0),
          ]
        : [];

    const report: StreamingReport = {
      date: new Date().toISOString(),
      command: `npm run bench:streaming${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`,
      quick: QUICK,
      config: CONFIG,
      machine: machineInfo(),
      load: [],
      server: { temporalCli: temporalCliVersion(), args: server.process.spawnargs.slice(1) },
      versions: {
        durableAgent: packageVersions(['@temporalio/worker', 'ai']),
        ...(theirs.status === 'fulfilled' ? { temporalAiSdk: theirs.value.info.versions } : {}),
      },
      temporalAiSdk: theirsUnavailable ? { available: false, reason: theirsUnavailable } : { available: true },
      defaultIntervalMs: DEFAULT_DELTA_INTERVAL_MS,
      headToHead: [],
      sweep: [],
      watchers: [],
      durationSeconds: 0,
    };
    const begins = (section: Section) => {
      if (selected.has(section)) report.load.push({ section, loadAverage: round(os.loadavg()[0]!, 2) });
      return selected.has(section);
    };

    if (begins('headToHead')) {
      report.headToHead = await measureHeadToHead(
        [durableAgent, durableAgentRedis, ...temporalAiSdk],
        history,
        { reps: CONFIG.headToHead.reps, writer: specs.delivery },
        log,
      );
    }
    if (begins('sweep')) {
      const { intervals, reps } = CONFIG.sweep;
      const options = { intervals, reps, writer: specs.sweep, plain: specs.sweepPlain };
      report.sweep = await measureSweep(durableAgent, history, options, log);
    }
    if (begins('watchers')) {
      // The stream client's default pause between polls: @temporalio/ai-sdk as its users get it.
      const runtimes = [durableAgent, durableAgentRedis, ...temporalAiSdk.slice(0, 1)];
      report.watchers = await measureWatchers(runtimes, history, { ...CONFIG.watchers, writer: specs.delivery }, log);
    }
    if (begins('cost')) {
      const options = { reps: CONFIG.cost.reps, streamed: specs.costStreamed, plain: specs.costPlain };
      report.cost = await measureCost(durableAgent, history, options, log);
      report.costRedis = await measureCost(durableAgentRedis, history, options, log);
    }

    report.durationSeconds = round((Date.now() - startedAt) / 1000, 1);
    report.machine.loadAverage.end = round(os.loadavg()[0]!, 2);
    const resultsDir = `${BENCH_DIR}results/`;
    if (only) keepUnselected(report, `${resultsDir}streaming.json`);
    const md = renderStreamingMarkdown(report);
    mkdirSync(resultsDir, { recursive: true });
    await writeJson(`${resultsDir}streaming.json`, report);
    writeFileSync(`${resultsDir}streaming.md`, md);
    process.stdout.write(md);
    log(`Wrote bench/results/streaming.json and bench/results/streaming.md (${report.durationSeconds} s).`);
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await Promise.all(connections.map((connection) => connection.close()));
    counter?.disconnect();
    await redis?.close();
    await server.stop();
  }
}

/**
 * Commands a redis-server has run so far: the calls in its INFO commandstats, less the INFO calls this counter makes
 * (one connection of the bench's own, opened before any run).
 */
function commandCounter(redis: Redis): () => Promise<number> {
  return async () => {
    const stats = await redis.info('commandstats');
    let calls = 0;
    for (const match of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (match[1] !== 'info') calls += Number(match[2]);
    }
    return calls;
  };
}

/** Versions of the packages durable-agent ran on, from its installed manifests. */
function packageVersions(names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => {
      try {
        const manifest = `${ROOT_DIR}node_modules/${name}/package.json`;
        return [name, (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version];
      } catch {
        return [name, 'unknown'];
      }
    }),
  );
}

await main();
