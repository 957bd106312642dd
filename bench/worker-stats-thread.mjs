// Entry of every worker thread a bench worker starts (see worker-stats.mjs): answers heap requests on its own port,
// then loads the thread's real entry script (Temporal's are CommonJS). The real script sees its own `workerData`.
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import workerThreads from 'node:worker_threads';

const { benchStats, original } = workerThreads.workerData;
benchStats.port.on('message', (/** @type {{ id: number, gc: boolean }} */ request) => {
  if (request.gc && typeof globalThis.gc === 'function') globalThis.gc();
  benchStats.port.postMessage({ id: request.id, heap: v8.getHeapStatistics() });
});
benchStats.port.unref();
workerThreads.workerData = original;
createRequire(import.meta.url)(benchStats.entry);
