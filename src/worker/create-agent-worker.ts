import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PayloadCodec } from '@temporalio/common';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import type { WorkerLimits } from '../../activities/limits.js';
import type { TranscriptCacheLimits } from '../../activities/transcripts.js';
import { type Agent } from '../agent/agent.js';
import { AgentRegistry } from '../agent/registry.js';
import { withWorkerPayloadCodec } from '../codec/worker-payload-codec.js';
import { connectWorker } from '../connection/connect-worker.js';
import type { TemporalConnectionOptions } from '../connection/connection-options.js';
import { resolveConnection } from '../connection/resolve-connection.js';
import { ProviderRegistry } from '../models/provider-registry.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/index.js';

/**
 * Options of `createAgentWorker`. Where to connect (`address`, `namespace`, `apiKey`, `tls`, `profile`, …) comes
 * from Temporal's environment configuration (`TEMPORAL_*` variables, `temporal.toml` profiles) unless given.
 */
export interface AgentWorkerOptions extends TemporalConnectionOptions {
  /** The agents this worker hosts, by name. */
  agents: Agent[] | AgentRegistry;
  /** Task queue to poll. Default: `TEMPORAL_TASK_QUEUE` (of `env`) or `durable-agent`. */
  taskQueue?: string;
  /** An existing connection; otherwise one is made from the connection settings. */
  connection?: NativeConnection;
  /** Model providers; default: OpenAI from the environment plus the offline stand-in. */
  providers?: ProviderRegistry;
  /** Bounds on what models and tools hand the runtime (docs/limits.md). */
  limits?: Partial<WorkerLimits>;
  /** Same as `limits.toolOutputBytes` (kept for compatibility). */
  maxToolOutputBytes?: number;
  /**
   * How long an MCP tool call is held open while its server waits for a person's answer; then the run waits
   * instead and re-issues the call. Default 60 s.
   */
  elicitationHoldMs?: number;
  /** Bounds of the worker's transcript cache (runs, bytes); `{ maxBytes: 1 }` caches nothing. */
  transcriptCache?: TranscriptCacheLimits;
  /** Streaming tools report progress to their run at most this often. Default 500 ms. */
  progressIntervalMs?: number;
  /**
   * Compresses/encrypts payloads (see `createPayloadCodec`); clients of this worker's runs need the same codec.
   * Default: `payloadCodecFromEnv()` (`DURABLE_AGENT_ENCRYPTION_KEY`, …), unless `worker.dataConverter` has
   * codecs. `false`: no codec.
   */
  payloadCodec?: PayloadCodec | false;
  /** A prebuilt workflow bundle (tests bundle once per file); default: bundle `workflows/` at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Anything else Temporal's `Worker.create` takes (concurrency limits, interceptors, sinks, …). */
  worker?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath'>>;
}

/**
 * Builds a Temporal worker hosting the `agentRun` workflow and every activity for the given agents. Secrets
 * (model keys, MCP tokens) stay here, in the worker's configuration; nothing of them reaches history.
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  // Resolved before connecting, so a bad key in the environment fails fast and leaves no connection open.
  const dataConverter = withWorkerPayloadCodec(options.worker?.dataConverter, options.payloadCodec);
  const agents = options.agents instanceof AgentRegistry ? options.agents : AgentRegistry.from(options.agents);
  const settings = resolveConnection(options);
  const connection = options.connection ?? (await connectWorker(settings));
  const activities = createActivities({
    agents,
    providers: options.providers ?? new ProviderRegistry(),
    ...(options.maxToolOutputBytes !== undefined ? { maxToolOutputBytes: options.maxToolOutputBytes } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.transcriptCache ? { transcriptCache: options.transcriptCache } : {}),
    ...(options.elicitationHoldMs !== undefined ? { elicitationHoldMs: options.elicitationHoldMs } : {}),
    ...(options.progressIntervalMs !== undefined ? { progressIntervalMs: options.progressIntervalMs } : {}),
  });
  return await Worker.create({
    // Streaming tools record each yield as a heartbeat; flush them promptly so a crash loses at most one step.
    maxHeartbeatThrottleInterval: '200ms',
    defaultHeartbeatThrottleInterval: '200ms',
    ...options.worker,
    connection,
    namespace: settings.namespace,
    taskQueue: options.taskQueue ?? (options.env ?? process.env).TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    activities,
    dataConverter,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: workflowsPath() }),
  });
}

/** The workflow entry point, as TypeScript source (tsx, tests) or compiled JavaScript (dist). */
export function workflowsPath(): string {
  for (const ext of ['ts', 'js']) {
    const path = fileURLToPath(new URL(`../../workflows/index.${ext}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('Cannot find workflows/index.ts or workflows/index.js next to the durable-agent sources.');
}
