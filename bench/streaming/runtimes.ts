// The two streaming runtimes behind one interface: start a run of a writer (see writer.ts) on the runtime's own
// worker process, watch it with one or more watchers, and check it wrote what the model wrote, so a broken runtime
// fails the bench instead of looking fast.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { AgentClient } from '../../src/client/agent-client.js';
import type { ChildWorker } from '../child-worker.js';
import { watchOurs, watchTheirs, type TokenLatencies } from './watch.js';
import { STAMP_BYTES, countStamps, type WriterSpec } from './writer.js';

/**
 * How the watchers of one run read it. `shared`: all in this process through one Temporal client, so durable-agent's
 * client shares one subscription between them. `separate`: each on its own client and connection, as watchers in
 * separate processes would be (a subscription each).
 */
export type WatchMode = 'shared' | 'separate';

/** One run, started. */
export interface StartedRun {
  readonly workflowId: string;
  /** One watcher's delivery latencies; `index` picks its Temporal client in `separate` mode. */
  watch(index: number, mode: WatchMode): Promise<TokenLatencies>;
  /** Resolves when the run completed with the text its model wrote; rejects otherwise. */
  finished(): Promise<void>;
}

/** A runtime whose runs stream a writer's text. */
export interface StreamingRuntime {
  readonly key: 'durableAgent' | 'durableAgentRedis' | 'temporalAiSdk' | 'temporalAiSdkNoCooldown';
  readonly label: string;
  /** The worker process whose CPU time the bench reads. */
  readonly worker: ChildWorker;
  /** The watch modes it has (only durable-agent's client shares a subscription between watchers). */
  readonly modes: readonly WatchMode[];
  /** Commands the bench's redis-server has run so far (its INFO commandstats), if the bench started one. */
  readonly redisCommands?: () => Promise<number>;
  /**
   * Starts a run of `writer`; `streaming` is durable-agent's per-run option (default: the agent's). `watched`: the
   * caller watches it from the start (durable-agent's `streaming.watched`, as `streamText` sets it).
   */
  start(
    writer: WriterSpec,
    streaming: false | { intervalMs: number } | undefined,
    watched: boolean,
  ): Promise<StartedRun>;
}

/** Throws unless `text` is what `writer`'s model wrote. */
function check(runtime: string, writer: WriterSpec, text: string): void {
  const ok =
    writer.kind === 'stamped'
      ? countStamps(text) === writer.tokens && text.length === writer.tokens * STAMP_BYTES
      : text.length === (writer.kind === 'plain' ? (writer.textBytes ?? writer.tokens) : writer.tokens);
  if (!ok) throw new Error(`${runtime}: a run of ${writer.name} ended with unexpected text (${text.length} chars).`);
}

/** durable-agent: `AgentClient.start`, watchers on `run.stream()`. `clients[0]` starts runs and shared watchers. */
export function durableAgentRuntime(
  clients: Client[],
  taskQueue: string,
  worker: ChildWorker,
  /** The live stream on Redis its worker publishes to (its watchers read it there); absent: Workflow Streams. */
  redis?: { url: string; key: string },
  redisCommands?: () => Promise<number>,
): StreamingRuntime {
  // Each watcher's client has a Redis transport of its own, as a watcher in another process would.
  const agents = clients.map(
    (client) => new AgentClient({ client, taskQueue, liveStream: redis ? { ...redis } : 'workflow' }),
  );
  const label = redis ? 'durable-agent, Redis' : 'durable-agent';
  return {
    key: redis ? 'durableAgentRedis' : 'durableAgent',
    label,
    worker,
    modes: ['shared', 'separate'],
    ...(redisCommands ? { redisCommands } : {}),
    start: async (writer, streaming, watched) => {
      const option = streaming !== false && watched ? { ...streaming, watched: true } : streaming;
      const run = await agents[0]!.start(writer.name, 'write', option === undefined ? {} : { streaming: option });
      return {
        workflowId: run.id,
        watch: (index, mode) => watchOurs(agents[mode === 'shared' ? 0 : index]!, run.id),
        finished: async () => check(label, writer, (await run.result()).text),
      };
    },
  };
}

/**
 * @temporalio/ai-sdk: its `aiSdkStreamingAgent` workflow (../temporal-ai-sdk/streaming-workflows.mjs) with the
 * provider's default batch interval; watchers subscribe to the run's topic with `WorkflowStreamClient`, each a
 * subscription of its own. `pollCooldownMs` undefined: the stream client's default pause between polls.
 */
export function temporalAiSdkRuntime(
  clients: Client[],
  taskQueue: string,
  worker: ChildWorker,
  pollCooldownMs?: number,
): StreamingRuntime {
  const label = `@temporalio/ai-sdk${pollCooldownMs === undefined ? '' : `, pollCooldown ${pollCooldownMs}`}`;
  const topic = 'model';
  return {
    key: pollCooldownMs === undefined ? 'temporalAiSdk' : 'temporalAiSdkNoCooldown',
    label,
    worker,
    modes: ['separate'],
    start: async (writer, streaming) => {
      if (writer.kind !== 'stamped' || streaming !== undefined) throw new Error(`${label} runs stamped writers only.`);
      const handle = await clients[0]!.workflow.start('aiSdkStreamingAgent', {
        taskQueue,
        workflowId: `bench-stream-tai-${randomUUID()}`,
        args: [{ modelId: `stamping:${writer.tokens}:${writer.delayMs}`, prompt: 'write', topic }],
      });
      return {
        workflowId: handle.workflowId,
        watch: (index) => watchTheirs(clients[index]!, handle.workflowId, topic, pollCooldownMs),
        finished: async () => check(label, writer, ((await handle.result()) as { text: string }).text),
      };
    },
  };
}
