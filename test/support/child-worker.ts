// Workers in their own processes, for tests that kill them: start a worker script under tsx with the suite's server
// and extra environment, wait until it says it polls (`process.send('ready')`), and SIGKILL it. Also reads the
// side-effects files such workers append to, one line per effect.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { testServer } from './temporal.js';

/** Starts `script` in a child process; resolves once it has sent 'ready'. Rejects if it exits first. */
export async function startChildWorker(script: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(script, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: testServer().address,
      TEMPORAL_NAMESPACE: testServer().namespace,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`worker ${script} exited early (${code})`)));
  });
  return child;
}

/** SIGKILLs a child worker and waits until it is gone (a no-op for one already gone). */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** The lines of a side-effects file ([] while it does not exist). */
export function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
}

/** Waits until a line of `file` matches `pattern`. */
export async function waitForLine(file: string, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!lines(file).some((line) => pattern.test(line))) {
    if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in ${file}: ${lines(file).join(' | ')}`);
    await delay(50);
  }
}
