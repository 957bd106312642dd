// The Compose file's `worker` service without Docker: `worker.ts` (what `npm run worker` runs) in a child
// process, configured by the same environment variables (Temporal's, and Redis' for live streams), ready once
// Temporal lists it as a poller.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { AgentClient } from '../../src/client/agent-client.js';
import { startService, type Service } from './processes.js';

/** Where the drill's workers connect. */
export interface WorkerTarget {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Runs' live streams: Redis and the stream key, as the Compose worker gets them. */
  redis: { url: string; key: string };
}

/** Starts worker number `n` and resolves once it polls the task queue. */
export async function startWorker(
  root: string,
  n: number,
  target: WorkerTarget,
  client: AgentClient,
  verbose: boolean,
): Promise<Service> {
  const env: NodeJS.ProcessEnv = {};
  // Only this server's settings: a TEMPORAL_API_KEY or profile of the shell must not leak into the drill.
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('TEMPORAL_')) env[name] = value;
  Object.assign(env, {
    TEMPORAL_ADDRESS: target.address,
    TEMPORAL_NAMESPACE: target.namespace,
    TEMPORAL_TASK_QUEUE: target.taskQueue,
    DURABLE_AGENT_REDIS_URL: target.redis.url,
    DURABLE_AGENT_STREAM_KEY: target.redis.key,
    HOME: '/nonexistent',
  });
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AGENT_MODEL']) delete env[key];
  const worker = startService(`worker-${n}`, process.execPath, ['--import', 'tsx', join(root, 'worker.ts')], {
    env,
    cwd: root,
    verbose,
  });
  const identity = `${worker.child.pid}@${hostname()}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (worker.child.exitCode !== null) throw new Error(`Worker ${n} exited:\n${worker.tail()}`);
    const { pollers } = await client.temporal.workflowService.describeTaskQueue({
      namespace: target.namespace,
      taskQueue: { name: target.taskQueue },
      taskQueueType: 1,
    });
    if (pollers.some((poller) => poller.identity === identity)) return worker;
    if (Date.now() > deadline) throw new Error(`Worker ${n} did not poll within 120 s:\n${worker.tail()}`);
    await delay(100);
  }
}
