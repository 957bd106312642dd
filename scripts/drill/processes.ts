// Child processes for the drill: run a command to completion (failing loudly with its output), or keep a
// long-running one (a server, a worker) with its last output lines for when it dies.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** Runs `command` to completion; rejects with its output when it exits non-zero. */
export async function run(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; quiet?: boolean } = {},
): Promise<string> {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (!options.quiet) process.stderr.write(chunk);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.split('\n').slice(-30).join('\n')}`);
  }
  return output;
}

/** A long-running child process. */
export interface Service {
  readonly name: string;
  readonly child: ChildProcess;
  /** The last lines it printed. */
  tail(): string;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts a long-running process; its output is kept (and shown with `verbose`). */
export function startService(
  name: string,
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; verbose?: boolean } = {},
): Service {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 40) lines.shift();
      if (options.verbose) process.stderr.write(`[${name}] ${line}\n`);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    child,
    tail: () => lines.join('\n'),
    kill: async () => {
      if (alive()) child.kill('SIGKILL');
      await exited;
    },
    stop: async (graceMs = 10_000) => {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * A TCP port free on 127.0.0.1 right now, below 32768: Temporal stores membership ports in a SQL `smallint`, and
 * the ports the OS hands out for port 0 are above that on Linux.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isFree(port)) return port;
  }
  throw new Error('No free port between 20000 and 32000 on 127.0.0.1.');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
