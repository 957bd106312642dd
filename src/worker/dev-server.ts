// Runs the Temporal CLI dev server (`temporal server start-dev`) as a child process: for tests, and for the demo
// when no TEMPORAL_ADDRESS is set. Worker-side only (spawns processes, opens sockets).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect as tcpConnect, createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES, searchAttributeFlags } from '../protocol/search-attributes.js';
import { INDEXED_TYPES } from '../runtime/search-attributes-check.js';
import { ensureTemporalBinary } from './temporal-cli.js';

export { ensureTemporalBinary, resolveTemporalBinary, temporalCacheDir } from './temporal-cli.js';

/** Options for {@link startDevServer}. */
export interface DevServerOptions {
  /** Frontend gRPC port; pass a stopped server's `port` to restart it on the same address. Default: a free port. */
  port?: number;
  /** Serve the Web UI on this port (`0` picks a free one). Default: headless, no UI. */
  uiPort?: number;
  /** Namespace to create at launch (kept across restarts with the same database). Default: `default`. */
  namespace?: string;
  /** SQLite file that keeps all state across restarts. Default: in memory, lost when the server stops. */
  dbFilename?: string;
  /** The `temporal` binary. Default: {@link ensureTemporalBinary} (found, or installed into the user cache). */
  binaryPath?: string;
  /** Forward the server's output: `true` to stderr, or a function per line. Default: kept only for errors. */
  log?: boolean | ((line: string) => void);
  /** How long to wait for the frontend to answer. Default: 30 s. */
  startTimeoutMs?: number;
}

/** A running dev server. */
export interface DevServer {
  /** `host:port` of the frontend gRPC service, for `Connection.connect` / `NativeConnection.connect`. */
  readonly address: string;
  /** The frontend port, to restart a server on the same address. */
  readonly port: number;
  readonly namespace: string;
  /** Web UI URL when started with `uiPort` (the UI the Temporal CLI embeds: it works offline). */
  readonly uiUrl?: string;
  readonly dbFilename?: string;
  readonly process: ChildProcess;
  /** SIGTERM, then SIGKILL after a grace period. Safe to call more than once, and to pass around unbound. */
  readonly stop: () => Promise<void>;
}

const HOST = '127.0.0.1';
const STOP_GRACE_MS = 5_000;
const OUTPUT_TAIL_LINES = 40;
const START_ATTEMPTS = 3;

/**
 * Dynamic config for a fast, offline dev server. One partition per task queue avoids forwarding delays on
 * brand-new queues (every test uses its own); cancelling polls on shutdown lets `Worker.shutdown()` return at
 * once instead of waiting out a long poll; the version check would call the internet.
 *
 * `history.transferProcessorMaxPollRPS`: the dev server has a single history shard, and that shard loads queued
 * tasks (every workflow task and every non-eager activity) at most this many times a second, 20 by default. At 20 a
 * sequential run gets one task per ~50 ms whatever the worker does, which is the server's rate limit, not the
 * runtime's cost. A production cluster spreads the same work over many shards, so it does not see this limit.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: readonly string[] = [
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
  'frontend.enableCancelWorkerPollsOnShutdown=true',
  'frontend.enableServerVersionCheck=false',
  'system.forceSearchAttributesCacheRefreshOnRead=true',
  'history.transferProcessorMaxPollRPS=10000',
];

/**
 * Starts `temporal server start-dev` on free local ports, with durable-agent's search attributes registered
 * (`SEARCH_ATTRIBUTES`), and resolves once its frontend answers gRPC calls and the namespace is usable.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const binaryPath = options.binaryPath ?? (await ensureTemporalBinary());
  const namespace = options.namespace ?? 'default';
  const dbFilename = options.dbFilename === undefined ? undefined : resolve(options.dbFilename);
  if (dbFilename) mkdirSync(dirname(dbFilename), { recursive: true });
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);

  // Only ports we picked ourselves are retried.
  const attempts = options.port === undefined || options.uiPort === 0 ? START_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await findFreePort());
    const uiPort = options.uiPort === 0 ? await findFreePort() : options.uiPort;
    const args = ['server', 'start-dev', '--ip', HOST, '--port', String(port), '--log-level', 'warn'];
    args.push(...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort), '--ui-disable-news-fetch']));
    if (namespace !== 'default') args.push('--namespace', namespace);
    if (dbFilename) args.push('--db-filename', dbFilename);
    for (const value of DEV_SERVER_DYNAMIC_CONFIG) args.push('--dynamic-config-value', value);
    // durable-agent's search attributes (an inbox finds waiting runs through them), registered in every namespace
    // the server creates; an existing database keeps them.
    for (const flag of searchAttributeFlags()) args.push('--search-attribute', flag);

    const server = launch(binaryPath, args, options.log);
    const address = `${HOST}:${port}`;
    try {
      await waitUntilReady(port, namespace, server, deadline);
      await ensureSearchAttributes(address, namespace);
    } catch (error) {
      await server.stop();
      // The CLI also binds ports of its own choosing (HTTP, metrics, internal services), and a port can be taken
      // between our check and its bind; any early exit with ports we picked is worth another try.
      if (attempt < attempts && server.exitedEarly()) continue;
      throw error;
    }
    return {
      address,
      port,
      namespace,
      ...(uiPort === undefined ? {} : { uiUrl: `http://${HOST}:${uiPort}` }),
      ...(dbFilename === undefined ? {} : { dbFilename }),
      process: server.child,
      stop: server.stop,
    };
  }
}

interface Launched {
  child: ChildProcess;
  stop: () => Promise<void>;
  /** The last lines of stdout and stderr. */
  tail(): string;
  exitedEarly(): boolean;
  /** The CLI prints its banner only after its own port checks pass, so a server found on the port is ours. */
  printedBanner(): boolean;
  exited: Promise<void>;
}

function launch(binaryPath: string, args: string[], log: DevServerOptions['log']): Launched {
  const child = spawn(binaryPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let banner = false;
  const forward = log === true ? (line: string) => process.stderr.write(`[temporal] ${line}\n`) : log || undefined;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > OUTPUT_TAIL_LINES) lines.shift();
      forward?.(line);
    }
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    banner = true;
    collect(chunk);
  });
  child.stderr?.on('data', collect);

  let exited = false;
  let stopping = false;
  const exitedPromise = new Promise<void>((resolveExit) => {
    child.once('exit', () => resolveExit());
    child.once('error', (error) => {
      lines.push(String(error));
      resolveExit();
    });
  }).then(() => {
    exited = true;
    process.off('exit', killOnExit);
  });
  // If the host process ends without calling stop(), do not leave an orphaned server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      stopping = true;
      if (exited) return;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<boolean>((resolveGrace) => {
        timer = setTimeout(() => resolveGrace(true), STOP_GRACE_MS);
      });
      const killed = await Promise.race([exitedPromise.then(() => false), graceOver]);
      clearTimeout(timer);
      if (killed) {
        child.kill('SIGKILL');
        await exitedPromise;
      }
    })());

  return {
    child,
    stop,
    tail: () => lines.join('\n'),
    exitedEarly: () => exited && !stopping,
    printedBanner: () => banner,
    exited: exitedPromise,
  };
}

/**
 * Registers durable-agent's search attributes the namespace lacks. `--search-attribute` registers them only in a new
 * database: a database kept from before (the demo's, `durable-agent dev`'s) gets them here.
 */
async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 5_000 });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.values(SEARCH_ATTRIBUTES).filter(({ name }) => customAttributes?.[name] === undefined);
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(({ name, type }) => [name, INDEXED_TYPES[type]])),
    });
  } finally {
    await connection.close();
  }
}

/** Polls the frontend until it serves the namespace, failing fast if the process dies. */
async function waitUntilReady(port: number, namespace: string, server: Launched, deadline: number): Promise<void> {
  const address = `${HOST}:${port}`;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (server.exitedEarly()) break;
    try {
      // A plain TCP probe first: gRPC backs off for a second after a refused connection, a socket does not.
      await probePort(port);
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        await connection.workflowService.describeNamespace({ namespace });
        // Another process answering on this port (a port conflict) must not pass for our server.
        if (server.printedBanner() && !server.exitedEarly()) return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
    }
    await Promise.race([new Promise((r) => setTimeout(r, 50)), server.exited]);
  }
  const lastMessage = lastError instanceof Error ? lastError.message : String(lastError);
  const reason = server.exitedEarly()
    ? `exited with code ${server.child.exitCode ?? server.child.signalCode ?? 'unknown'}`
    : `did not answer at ${address} in time (last error: ${lastMessage})`;
  throw new Error(
    `Temporal dev server ${reason}.\nCommand: ${server.child.spawnargs.join(' ')}\n` +
      `Server output (last lines):\n${server.tail() || '(none)'}`,
  );
}

function probePort(port: number): Promise<void> {
  return new Promise((resolveProbe, reject) => {
    const socket = tcpConnect({ host: HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolveProbe();
    });
    socket.once('error', (error) => {
      socket.destroy();
      reject(error);
    });
  });
}

function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}
