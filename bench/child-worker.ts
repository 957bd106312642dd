// Starts a bench worker as a child process and waits for its `{"ready":true}` line. Closing the child's stdin
// (or SIGTERM) makes it shut its Temporal worker down; `stop()` does both and waits for the exit.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A running child worker. */
export interface ChildWorker {
  /** The ready line's extra fields (e.g. package versions). */
  readonly info: Record<string, unknown>;
  stop(): Promise<void>;
}

/** Options of {@link startChildWorker}. */
export interface ChildWorkerOptions {
  /** For messages. */
  name: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Bundling the workflow code takes a while on two cores. */
  readyTimeoutMs?: number;
}

/** Spawns `node <args>` and resolves once the worker polls; rejects with its stderr if it exits or times out. */
export async function startChildWorker(options: ChildWorkerOptions): Promise<ChildWorker> {
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString('utf8'));
    if (stderr.length > 50) stderr.shift();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timeoutMs = options.readyTimeoutMs ?? 240_000;
    const timer = setTimeout(() => fail(`did not start within ${timeoutMs} ms`), timeoutMs);
    const lines = createInterface({ input: child.stdout });
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${options.name} worker ${why}.\n${stderr.join('').trim().slice(-4000)}`));
    };
    lines.on('line', (line) => {
      try {
        const message = JSON.parse(line) as { ready?: boolean } & Record<string, unknown>;
        if (message.ready) {
          clearTimeout(timer);
          resolve(message);
        }
      } catch {
        // Not our line (a library printing to stdout): ignore.
      }
    });
    child.once('exit', (code, signal) => fail(`exited (${signal ?? `code ${code}`}) before it was ready`));
  });

  return {
    info,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
    },
  };
}
