// Workers in their own processes, for tests that kill them: start a worker script under tsx with the suite's server
// and extra environment, wait until it says it polls (`process.send('ready')`), and SIGKILL it; or watch how it ends
// (exit code, signal, time) when the test signals it. Also writes the workflow bundle such workers load, and reads
// the side-effects files they append to, one line per effect.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { bundleWorkflows, testServer } from './temporal.js';

function forkWorker(script: string, env: Record<string, string>, stdout: 'ignore' | 'pipe'): ChildProcess {
  return fork(script, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: testServer().address,
      TEMPORAL_NAMESPACE: testServer().namespace,
      ...env,
    },
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
}

/** Starts `script` in a child process; resolves once it has sent 'ready'. Rejects if it exits first. */
export async function startChildWorker(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = forkWorker(script, env, 'ignore');
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`worker ${script} exited early (${code})`)));
  });
  return child;
}

/** How a watched worker process ended, and when (`Date.now()` at its exit). */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/** A worker process whose end the test judges (after a SIGTERM, say), and its stdout when captured. */
export interface WatchedWorker {
  child: ChildProcess;
  exited: Promise<WorkerExit>;
  /** Its stdout so far ('' unless started with `captureOutput`). */
  output(): string;
}

/**
 * Starts `script` in a child process, as {@link startChildWorker} does, and keeps how it ends; with `captureOutput`,
 * its stdout too. Resolves once it has sent 'ready'; rejects if it exits first.
 */
export async function startWatchedWorker(
  script: string,
  env: Record<string, string>,
  { captureOutput = false } = {},
): Promise<WatchedWorker> {
  const child = forkWorker(script, env, captureOutput ? 'pipe' : 'ignore');
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<WorkerExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    void exited.then(({ code }) => reject(new Error(`worker ${script} exited before it was ready (${code})`)));
  });
  return { child, exited, output: () => out };
}

/** SIGKILLs a watched worker unless it has ended already, and waits for its exit. */
export async function stopWatchedWorker(worker: WatchedWorker): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  await worker.exited;
}

/** SIGKILLs a child worker and waits until it is gone (a no-op for one already gone). */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Bundles the package's workflows into a file of a new temporary folder, for child workers' `WORKFLOW_BUNDLE`. */
export async function writeWorkflowBundle(): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'durable-agent-bundle-')), 'workflows.js');
  writeFileSync(path, (await bundleWorkflows(workflowsPath())).code);
  return path;
}

/** The lines of a side-effects file ([] while it does not exist). */
export function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
}

/** Waits until a line of `file` matches `pattern`; resolves with that line. */
export async function waitForLine(file: string, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = lines(file).find((l) => pattern.test(l));
    if (line !== undefined) return line;
    if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in ${file}: ${lines(file).join(' | ')}`);
    await delay(50);
  }
}
