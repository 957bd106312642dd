// `durable-agent dev [agentsFile]`: the development loop. An embedded Temporal dev server (unless TEMPORAL_ADDRESS
// names one) that keeps its state in .durable-agent/dev.db, the Web UI link, and a worker for the user's agents in a
// child process (`durable-agent worker`), restarted whenever a file of the project changes. The server lives in
// this process, so runs that wait for a person survive every restart of the worker.
import { type ChildProcess, spawn } from 'node:child_process';
import { type FSWatcher, watch } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { startDevServer, type DevServer } from '../../worker/dev-server.js';
import { packageRoot } from '../../worker/temporal-cli.js';
import { findAgentsFile } from './load-agents.js';
import type { HostIo } from './worker-command.js';

/** The ports a developer's tools expect (`temporal` CLI, this CLI, the Web UI bookmark). */
const DEV_PORT = 7233;
const DEV_UI_PORT = 8233;
const RESTART_DEBOUNCE_MS = 200;
const STOP_GRACE_MS = 3_000;
const IGNORED = new Set(['node_modules', '.durable-agent', '.git', 'dist', 'coverage']);

/** Runs until SIGINT/SIGTERM or `io.signal`; resolves with the exit status. */
export async function devCommand(agentsFile: string | undefined, io: HostIo): Promise<number> {
  const file = findAgentsFile(agentsFile);
  const projectDir = process.cwd();
  // The agents file's folder, not the whole project: a recursive watch of node_modules would cost thousands of
  // inotify watches.
  const watchedDir = dirname(file);
  const server = io.env.TEMPORAL_ADDRESS ? undefined : await startServer(projectDir, io);
  const env = server
    ? { ...io.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace }
    : { ...io.env };
  if (!server) io.out(`using the Temporal at ${io.env.TEMPORAL_ADDRESS} (TEMPORAL_ADDRESS)`);

  const stopped = new AbortController();
  const onSignal = () => stopped.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  io.signal?.addEventListener('abort', onSignal, { once: true });

  let child: ChildProcess | undefined;
  const launch = () => {
    const bin = join(packageRoot(), 'bin', 'durable-agent.mjs');
    const launched = spawn(process.execPath, [bin, 'worker', file], { stdio: 'inherit', env });
    launched.once('exit', (code) => {
      // A worker that fails (a syntax error, a missing key) waits for the next save instead of ending the loop.
      if (code !== 0 && code !== null && launched === child && !stopped.signal.aborted) {
        io.note(`the worker stopped (exit status ${code}): fix what it printed and save a file to restart it`);
      }
    });
    child = launched;
  };
  let watcher: FSWatcher | undefined;
  try {
    launch();
    let timer: NodeJS.Timeout | undefined;
    let restarting = Promise.resolve();
    watcher = watch(watchedDir, { recursive: true }, (_event, name) => {
      if (!name || name.split(sep).some((part) => IGNORED.has(part))) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        restarting = restarting.then(async () => {
          if (stopped.signal.aborted) return;
          io.note(`\n${relative(projectDir, join(watchedDir, name))} changed: restarting the worker`);
          await stopChild(child);
          if (!stopped.signal.aborted) launch();
        });
      }, RESTART_DEBOUNCE_MS);
    });
    await new Promise<void>((resolveStop) => stopped.signal.addEventListener('abort', () => resolveStop()));
    clearTimeout(timer);
    await restarting;
    return 0;
  } finally {
    watcher?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopChild(child);
    await server?.stop();
  }
}

async function startServer(projectDir: string, io: HostIo): Promise<DevServer> {
  const dbFilename = join(projectDir, '.durable-agent', 'dev.db');
  let server: DevServer;
  try {
    server = await startDevServer({ port: DEV_PORT, uiPort: DEV_UI_PORT, dbFilename });
  } catch {
    // Something else holds the usual ports (another dev server?): any free ones will do, and we say which.
    server = await startDevServer({ uiPort: 0, dbFilename });
    io.note(
      `ports ${DEV_PORT}/${DEV_UI_PORT} are taken, so the dev server listens on ${server.address}: in other ` +
        `terminals, export TEMPORAL_ADDRESS=${server.address}`,
    );
  }
  io.out(`Temporal dev server at ${server.address} (state in ${relative(projectDir, dirname(dbFilename))}/)`);
  io.out(`Web UI: ${server.uiUrl}/namespaces/${server.namespace}/workflows`);
  return server;
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
