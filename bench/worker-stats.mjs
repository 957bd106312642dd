// Instrumentation of a bench worker process (durable-agent's, the floor's and @temporalio/ai-sdk's): it answers
// requests on stdin with its CPU time and memory, and writes heap snapshots. Temporal's SDK runs workflows in worker
// threads, each a V8 isolate of its own that `process.memoryUsage()` does not count, so the threads it starts are
// tracked and asked too. Plain JavaScript without dependencies, so the isolated @temporalio/ai-sdk install loads it.
//
// Protocol: the parent writes one JSON object per line, `{"id":1,"cmd":"stats","gc":true}` or
// `{"id":2,"cmd":"heap-snapshot","dir":"/tmp/x"}`, and gets one line back, `{"id":1,"stats":{...}}` or
// `{"id":1,"error":"..."}`. stdin closing means "stop".
import { createWriteStream, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import workerThreads from 'node:worker_threads';

const THREAD_ENTRY = fileURLToPath(new URL('./worker-stats-thread.mjs', import.meta.url));

/** @type {Array<{ worker: import('node:worker_threads').Worker, port: import('node:worker_threads').MessagePort }>} */
const threads = [];
let nextRequest = 1;

/**
 * Makes every worker thread started from now on answer heap requests: `new Worker(file)` starts a small entry
 * script that listens on a port of its own, then loads `file`. Call before the Temporal worker is created.
 */
export function instrumentWorkerThreads() {
  const Original = workerThreads.Worker;
  // The SDK reads `Worker` off the module object when it starts its threads, so replacing it here is enough.
  workerThreads.Worker = class TrackedWorker extends Original {
    /**
     * @param {string | URL} filename
     * @param {import('node:worker_threads').WorkerOptions} [options]
     */
    constructor(filename, options = {}) {
      if (options.eval) {
        super(filename, options);
        return;
      }
      const { port1, port2 } = new workerThreads.MessageChannel();
      super(THREAD_ENTRY, {
        ...options,
        workerData: { benchStats: { entry: String(filename), port: port2 }, original: options.workerData },
        transferList: [...(options.transferList ?? []), port2],
      });
      port1.unref();
      const tracked = { worker: this, port: port1 };
      threads.push(tracked);
      this.once('exit', () => threads.splice(threads.indexOf(tracked), 1));
    }
  };
}

/**
 * Asks a worker thread something (see worker-stats-thread.mjs) and resolves with its answer.
 *
 * @param {{ port: import('node:worker_threads').MessagePort }} thread
 * @param {{ gc?: boolean, profile?: 'start' | 'stop' }} request
 * @returns {Promise<{ heap?: import('node:v8').HeapInfo, profile?: unknown, promises?: number, workflowPromises?: number, cpuMs?: number }>}
 */
function askThread(thread, request) {
  const id = nextRequest++;
  return new Promise((resolve) => {
    /** @param {{ id: number }} message */
    const onMessage = (message) => {
      if (message.id !== id) return;
      thread.port.off('message', onMessage);
      resolve(message);
    };
    thread.port.on('message', onMessage);
    thread.port.postMessage({ id, ...request });
  });
}

/** @type {Session | undefined} */
let profiler;

/** Starts V8's CPU profiler in the main thread and in every worker thread. */
export async function startProfiles() {
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
  await profiler.post('Profiler.start');
  await Promise.all(threads.map((thread) => askThread(thread, { profile: 'start' })));
}

/**
 * Stops the profilers and writes each thread's profile into `dir` (`main.cpuprofile`, `thread<n>.cpuprofile`, for
 * Chrome DevTools or bench/profile.ts); returns their paths.
 *
 * @param {string} dir
 */
export async function stopProfiles(dir) {
  if (!profiler) throw new Error('No profile was started.');
  const { profile } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  profiler = undefined;
  const files = [join(dir, 'main.cpuprofile')];
  writeFileSync(files[0], JSON.stringify(profile));
  for (const [index, thread] of threads.entries()) {
    const answer = await askThread(thread, { profile: 'stop' });
    files.push(join(dir, `thread${index}.cpuprofile`));
    writeFileSync(files[files.length - 1], JSON.stringify(answer.profile));
  }
  return files;
}

/**
 * The process's CPU time and memory. With `gc`, a full garbage collection runs first in the main thread and in
 * every worker thread (the process must run with `--expose-gc`), so heap figures are live data only.
 *
 * @param {{ gc?: boolean }} [options]
 */
export async function processStats(options = {}) {
  const gc = options.gc === true;
  if (gc) {
    if (typeof globalThis.gc !== 'function') throw new Error('Run the worker with --expose-gc to measure live heap.');
    globalThis.gc();
  }
  const answers = await Promise.all(threads.map((thread) => askThread(thread, { gc })));
  const heaps = answers.map((answer) => answer.heap);
  const cpu = process.cpuUsage();
  const mainCpu = process.threadCpuUsage();
  const memory = process.memoryUsage();
  const threadHeapUsed = heaps.reduce((sum, heap) => sum + heap.used_heap_size, 0);
  return {
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    /** CPU time of the main thread (activities, payload conversion, the SDK's side of workflow tasks). */
    mainCpuMs: (mainCpu.user + mainCpu.system) / 1000,
    /** CPU time of the worker threads (the workflow sandbox). The rest of the process's is the Rust core and GC. */
    threadCpuMs: answers.reduce((sum, answer) => sum + (answer.cpuMs ?? 0), 0),
    rssBytes: memory.rss,
    mainHeapUsedBytes: memory.heapUsed,
    threadHeapUsedBytes: threadHeapUsed,
    /** V8 heap in use over every isolate of the process (main thread and workflow threads). */
    heapUsedBytes: memory.heapUsed + threadHeapUsed,
    externalBytes: memory.external,
    threads: heaps.length,
    /** Promises created in the worker threads so far. */
    threadPromises: answers.reduce((sum, answer) => sum + (answer.promises ?? 0), 0),
    /** Of them, those made by workflow code in the sandbox: Temporal's promise hook captures a stack for each. */
    workflowPromises: answers.reduce((sum, answer) => sum + (answer.workflowPromises ?? 0), 0),
  };
}

/**
 * Writes heap snapshots of the main thread and every worker thread into `dir`; returns their paths.
 *
 * @param {string} dir
 */
export async function writeHeapSnapshots(dir) {
  const stamp = Date.now();
  const files = [v8.writeHeapSnapshot(join(dir, `main-${stamp}.heapsnapshot`))];
  for (const [index, thread] of threads.entries()) {
    const file = join(dir, `thread${index}-${stamp}.heapsnapshot`);
    await pipeline(await thread.worker.getHeapSnapshot(), createWriteStream(file));
    files.push(file);
  }
  return files;
}

/**
 * Answers the parent's requests on stdin (see the top of this file) and calls `onClose` when stdin ends.
 *
 * @param {() => void} onClose
 */
export function serveStats(onClose) {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    /** @type {{ id?: number, cmd?: string, gc?: boolean, dir?: string }} */
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      return;
    }
    const answer = async () => {
      if (request.cmd === 'stats') return { stats: await processStats({ gc: request.gc === true }) };
      if (request.cmd === 'heap-snapshot' && request.dir) return { files: await writeHeapSnapshots(request.dir) };
      if (request.cmd === 'profile-start') return { files: await startProfiles() };
      if (request.cmd === 'profile-stop' && request.dir) return { files: await stopProfiles(request.dir) };
      throw new Error(`Unknown request: ${line}`);
    };
    answer().then(
      (result) => process.stdout.write(`${JSON.stringify({ id: request.id, ...result })}\n`),
      (error) => process.stdout.write(`${JSON.stringify({ id: request.id, error: String(error) })}\n`),
    );
  });
  lines.on('close', onClose);
}
