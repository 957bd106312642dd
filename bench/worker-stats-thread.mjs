// Entry of every worker thread a bench worker starts (see worker-stats.mjs): answers heap requests on its own port,
// then loads the thread's real entry script (Temporal's are CommonJS). The real script sees its own `workerData`.
import { Session } from 'node:inspector/promises';
import process from 'node:process';
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import workerThreads from 'node:worker_threads';

const { benchStats, original } = workerThreads.workerData;
// Promises created in this thread, and those of them made by workflow code: their constructor is the sandbox's
// Promise, not this thread's, and Temporal's promise hook (for the stack trace query) captures and keeps a stack
// trace for each of them while it is pending. The SDK's own promises outside the sandbox cost no capture.
let promises = 0;
let workflowPromises = 0;
v8.promiseHooks.onInit((promise) => {
  promises++;
  if (promise.constructor !== Promise) workflowPromises++;
});
/** @type {Session | undefined} */
let profiler;
benchStats.port.on('message', (/** @type {{ id: number, gc?: boolean, profile?: 'start' | 'stop' }} */ request) => {
  const answer = async () => {
    if (request.profile === 'start') {
      profiler = new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
      return {};
    }
    if (request.profile === 'stop') {
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      return { profile };
    }
    if (request.gc && typeof globalThis.gc === 'function') globalThis.gc();
    const cpu = process.threadCpuUsage();
    return { heap: v8.getHeapStatistics(), promises, workflowPromises, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  void answer().then((result) => benchStats.port.postMessage({ id: request.id, ...result }));
});
benchStats.port.unref();
workerThreads.workerData = original;
createRequire(import.meta.url)(benchStats.entry);
