// Instrumentation of a bench worker process (durable-agent's, the floor's and @temporalio/ai-sdk's): it answers
// requests on stdin with its CPU time and memory, and writes heap snapshots. Temporal's SDK runs workflows in worker
// threads, each a V8 isolate of its own that `process.memoryUsage()` does not count, so the threads it starts are
// tracked and asked too. Plain JavaScript without dependencies, so the isolated @temporalio/ai-sdk install loads it.
//
// Protocol: the parent writes one JSON object per line, `{"id":1,"cmd":"stats","gc":true}` or
// `{"id":2,"cmd":"heap-snapshot","dir":"/tmp/x"}`, and gets one line back, `{"id":1,"stats":{...}}` or
// `{"id":1,"error":"..."}`. stdin closing means "stop".
import { createWriteStream } from 'node:fs';
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
 * @param {{ port: import('node:worker_threads').MessagePort }} thread
 * @param {boolean} gc
 * @returns {Promise<import('node:v8').HeapInfo>}
 */
function threadHeap(thread, gc) {
  const id = nextRequest++;
  return new Promise((resolve) => {
    /** @param {{ id: number, heap: import('node:v8').HeapInfo }} message */
    const onMessage = (message) => {
      if (message.id !== id) return;
      thread.port.off('message', onMessage);
      resolve(message.heap);
    };
    thread.port.on('message', onMessage);
    thread.port.postMessage({ id, gc });
  });
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
  const heaps = await Promise.all(threads.map((thread) => threadHeap(thread, gc)));
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  const threadHeapUsed = heaps.reduce((sum, heap) => sum + heap.used_heap_size, 0);
  return {
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    rssBytes: memory.rss,
    mainHeapUsedBytes: memory.heapUsed,
    threadHeapUsedBytes: threadHeapUsed,
    /** V8 heap in use over every isolate of the process (main thread and workflow threads). */
    heapUsedBytes: memory.heapUsed + threadHeapUsed,
    externalBytes: memory.external,
    threads: heaps.length,
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
      throw new Error(`Unknown request: ${line}`);
    };
    answer().then(
      (result) => process.stdout.write(`${JSON.stringify({ id: request.id, ...result })}\n`),
      (error) => process.stdout.write(`${JSON.stringify({ id: request.id, error: String(error) })}\n`),
    );
  });
  lines.on('close', onClose);
}
