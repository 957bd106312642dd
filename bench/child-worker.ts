// Starts a bench worker as a child process and waits for its `{"ready":true}` line. The child answers requests on
// its stdin (`worker-stats.mjs`: CPU time, memory, heap snapshots); closing its stdin (or SIGTERM) makes it shut
// its Temporal worker down, and `stop()` does both and waits for the exit.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** What a worker process reports about itself (see `processStats` in worker-stats.mjs). */
export interface WorkerStats {
  cpuUserMs: number;
  cpuSystemMs: number;
  /** CPU time of the main thread. */
  mainCpuMs: number;
  /** CPU time of the workflow threads. */
  threadCpuMs: number;
  rssBytes: number;
  mainHeapUsedBytes: number;
  threadHeapUsedBytes: number;
  /** V8 heap in use over the main thread and the workflow threads. */
  heapUsedBytes: number;
  externalBytes: number;
  threads: number;
  /** Promises created in the worker threads so far (the SDK's and the workflows'). */
  threadPromises: number;
  /** Of them, those made by workflow code in the sandbox: Temporal's promise hook captures a stack trace for each. */
  workflowPromises: number;
}

/** A running child worker. */
export interface ChildWorker {
  readonly name: string;
  /** The ready line's extra fields (e.g. package versions). */
  readonly info: Record<string, unknown>;
  /** CPU time and memory of the worker process; `gc` collects garbage first (live heap only). */
  stats(options?: { gc?: boolean }): Promise<WorkerStats>;
  /** Writes heap snapshots of every thread of the worker into `dir`; resolves with their paths. */
  heapSnapshots(dir: string): Promise<string[]>;
  /** Starts V8's CPU profiler in every thread of the worker. */
  startProfiles(): Promise<void>;
  /** Stops the profilers and writes one `.cpuprofile` per thread into `dir`; resolves with their paths. */
  stopProfiles(dir: string): Promise<string[]>;
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
  // --expose-gc: heap figures are measured after a full collection.
  const child = spawn(process.execPath, ['--expose-gc', ...options.args], {
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

  const pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const lines = createInterface({ input: child.stdout });
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timeoutMs = options.readyTimeoutMs ?? 240_000;
    const timer = setTimeout(() => fail(`did not start within ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${options.name} worker ${why}.\n${stderr.join('').trim().slice(-4000)}`));
    };
    lines.on('line', (line) => {
      let message: { ready?: boolean; id?: number; error?: string } & Record<string, unknown>;
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        return; // Not our line (a library printing to stdout): ignore.
      }
      if (message.ready) {
        clearTimeout(timer);
        resolve(message);
      } else if (typeof message.id === 'number' && pending.has(message.id)) {
        const request = pending.get(message.id)!;
        pending.delete(message.id);
        if (message.error) request.reject(new Error(`${options.name} worker: ${message.error}`));
        else request.resolve(message);
      }
    });
    child.once('exit', (code, signal) => {
      fail(`exited (${signal ?? `code ${code}`}) before it was ready`);
      for (const request of pending.values()) request.reject(new Error(`${options.name} worker exited.`));
    });
  });

  const request = (body: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ id, ...body })}\n`);
    });

  return {
    name: options.name,
    info,
    stats: async ({ gc = false } = {}) =>
      ((r) => ({ ...(r.stats as WorkerStats) }))(await request({ cmd: 'stats', gc })),
    heapSnapshots: async (dir) => (await request({ cmd: 'heap-snapshot', dir })).files as string[],
    startProfiles: async () => {
      await request({ cmd: 'profile-start' });
    },
    stopProfiles: async (dir) => (await request({ cmd: 'profile-stop', dir })).files as string[],
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
