// `npm run drill`: the production topology of docker-compose.yml stood up without Docker, then the crash and
// approval drills against it. Not part of `npm test` (it builds a Go server the first time, several minutes).
//
// 1. Temporal server and its SQL tool built from the Go module go.temporal.io/server at the version the Compose
//    file's image runs (once, into .tools/temporal-server; Go caches in .tools/go).
// 2. Debian's PostgreSQL: a throwaway cluster (user temporal/temporal, as the Compose file's postgres service).
// 3. The schema set up with temporal-sql-tool, the server started on the image's config template and variables,
//    the default namespace created: what temporalio/auto-setup does.
// 4. Debian's redis-server with the Compose redis service's command, and a fresh stream key.
// 5. The worker (`worker.ts`, as the Compose worker service runs it, streaming through Redis), then the drills:
//    SIGKILL mid-tool, and SIGKILL while a run waits for approval, watched through Redis; after each, the run's
//    live stream read back from Redis with no worker: its text the run's answer, no signal, no update but the
//    person's decisions.
//
// Options: --keep (keep the drill's data directory under .tools/drill/ for inspection; processes stop),
// --verbose (show the server's and workers' output), --dev-server (the same drills against the embedded dev
// server instead, to compare). Prints a report and writes .tools/drill/last-report.json (or last-dev-report.json).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AgentClient } from '../src/client/agent-client.js';
import { RedisLiveStream } from '../src/live/redis-live-stream.js';
import { resolveTemporalBinary, startDevServer } from '../src/worker/dev-server.js';
import { buildTemporalServer, composeServerVersion } from './drill/build-server.js';
import { approvalDrill, crashDrill, type DrillResult } from './drill/drills.js';
import { checkLiveStream } from './drill/live-check.js';
import { startPostgres, type Postgres } from './drill/postgres.js';
import type { Service } from './drill/processes.js';
import { startRedis, type DrillRedis } from './drill/redis.js';
import { startTemporalServer, type TemporalServer } from './drill/temporal-server.js';
import { startWorker } from './drill/workers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({
  options: {
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    'dev-server': { type: 'boolean', default: false },
  },
});
const say = (text: string) => process.stdout.write(`${text}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<number> {
  const started = performance.now();
  const version = composeServerVersion(ROOT);
  const devServer = flags['dev-server'];
  say(
    devServer
      ? 'Drills against the embedded dev server (temporal server start-dev), for comparison.'
      : `Production drill: Temporal ${version} on PostgreSQL, as docker-compose.yml runs it, without Docker.`,
  );

  let build: Awaited<ReturnType<typeof buildTemporalServer>> | undefined;
  if (!devServer) {
    say(`Building go.temporal.io/server@v${version} (cmd/server, cmd/tools/sql)…`);
    build = await buildTemporalServer(ROOT, version);
    say(build.builtInMs === undefined ? `  already built: ${build.server}` : `  built in ${seconds(build.builtInMs)}`);
  }

  const dir = join(ROOT, '.tools', 'drill', `run-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const results: DrillResult[] = [];
  let postgres: Postgres | undefined;
  let redis: DrillRedis | undefined;
  let server: Pick<TemporalServer, 'address' | 'namespace'> & Partial<Pick<TemporalServer, 'timings'>> = {
    address: '',
    namespace: 'default',
  };
  let setupMs = 0;
  try {
    const setupStarted = performance.now();
    if (build) {
      postgres = await startPostgres(dir);
      const pg = postgres;
      stops.push(() => pg.stop());
      say(`PostgreSQL ${postgres.version} on 127.0.0.1:${postgres.port}.`);
      const temporal = await startTemporalServer(build, postgres, dir, {
        namespace: 'default',
        temporalCli: resolveTemporalBinary(),
        verbose: flags.verbose,
      });
      stops.push(() => temporal.service.stop());
      server = temporal;
      setupMs = performance.now() - setupStarted;
      say(
        `Temporal at ${temporal.address}: schema ${seconds(temporal.timings.schemaMs)}, server up in ` +
          `${seconds(temporal.timings.startMs)}, namespace ${seconds(temporal.timings.namespaceMs)}.`,
      );
    } else {
      const dev = await startDevServer({ log: flags.verbose });
      stops.push(() => dev.stop());
      server = { address: dev.address, namespace: dev.namespace };
      setupMs = performance.now() - setupStarted;
      say(`Dev server at ${dev.address}, up in ${seconds(setupMs)}.`);
    }

    redis = await startRedis(ROOT, dir, flags.verbose);
    const redisService = redis.service;
    stops.push(() => redisService.stop());
    say(`Redis ${redis.version} at ${redis.url} (${redis.composeArgs.join(' ')}), a fresh stream key.`);

    // The client's transport, made here to be closed here (before Redis stops, or it would try to reconnect).
    const liveStream = new RedisLiveStream({ url: redis.url, key: redis.key });
    stops.push(() => liveStream.close());

    const taskQueue = `drill-${Date.now()}`;
    const client = await AgentClient.connect({
      address: server.address,
      namespace: server.namespace,
      taskQueue,
      env: {},
      liveStream,
    });
    stops.push(() => client.temporal.connection.close());
    const target = { address: server.address, namespace: server.namespace, taskQueue, redis };
    let workers = 0;
    const launched: Service[] = [];
    stops.push(async () => {
      for (const worker of launched) await worker.stop();
    });
    const nextWorker = async () => {
      const worker = await startWorker(ROOT, ++workers, target, client, flags.verbose);
      launched.push(worker);
      return worker;
    };
    let worker = await nextWorker();
    for (const [drill, decisions] of [
      [crashDrill, 0],
      [approvalDrill, 1],
    ] as const) {
      const outcome = await drill(client, worker, nextWorker);
      worker = outcome.worker;
      const live = await checkLiveStream(client, redis, outcome.result.runId, decisions);
      outcome.result.ok &&= live.ok;
      outcome.result.details.push(...live.details);
      results.push(outcome.result);
      const { ok, name, totalMs, workerReadyMs, recoveryMs } = outcome.result;
      say(
        `${ok ? 'PASS' : 'FAIL'} ${name}: ${seconds(totalMs)}; after the SIGKILL a new worker polled in ` +
          `${seconds(workerReadyMs)} and the run answered at ${seconds(recoveryMs)}`,
      );
      for (const line of outcome.result.details) say(`     ${line}`);
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => say(`cleanup: ${String(error)}`));
    if (!flags.keep) rmSync(dir, { recursive: true, force: true });
  }
  const totalMs = performance.now() - started;
  const report = {
    at: new Date().toISOString(),
    server: devServer ? 'dev server (temporal server start-dev)' : `temporal ${version} on postgresql`,
    temporalServer: devServer ? null : version,
    postgres: postgres?.version ?? null,
    redis: redis?.version ?? null,
    buildMs: build?.builtInMs ?? null,
    setupMs,
    timings: server.timings ?? null,
    drills: results,
    totalMs,
  };
  const reportFile = devServer ? 'last-dev-report.json' : 'last-report.json';
  writeFileSync(join(ROOT, '.tools', 'drill', reportFile), `${JSON.stringify(report, null, 2)}\n`);
  const built = !build ? 'none' : build.builtInMs === undefined ? 'cached' : seconds(build.builtInMs);
  say(`Total ${seconds(totalMs)} (build ${built}, setup ${seconds(setupMs)}).`);
  return results.length === 2 && results.every((r) => r.ok) ? 0 : 1;
}

process.exitCode = await main().catch((error: unknown) => {
  say(`Drill failed: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
});
