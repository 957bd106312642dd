import type { PayloadCodec } from '@temporalio/common';
import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { WorkerLimits } from '../../activities/limits.js';
import type { TranscriptCacheLimits } from '../../activities/transcripts.js';
import { type Agent } from '../agent/agent.js';
import { type AgentRegistry } from '../agent/registry.js';
import { connectWorker } from '../connection/connect-worker.js';
import type { TemporalConnectionOptions } from '../connection/connection-options.js';
import { resolveConnection } from '../connection/resolve-connection.js';
import { type ProviderRegistry } from '../models/provider-registry.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/index.js';
import type { AgentTelemetry } from '../telemetry/agent-telemetry.js';
import { DurableAgentPlugin } from './plugin.js';
import { installQuietRuntime } from './worker-log-level.js';

export { workflowsPath } from './workflow-paths.js';

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
  /** Tracing (see `DurableAgentPluginOptions.telemetry`). Default: from the OpenTelemetry environment variables. */
  telemetry?: AgentTelemetry | false;
  /** A prebuilt workflow bundle (tests bundle once per file); default: bundle `workflows/` at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Anything else Temporal's `Worker.create` takes (concurrency limits, interceptors, sinks, shutdown times, more
   * plugins, …). Unset heartbeat and shutdown settings get `AGENT_WORKER_DEFAULTS`. Two settings to leave alone
   * (docs/performance.md): never `maxCachedWorkflows: 0` (every workflow task of every run would replay its whole
   * history), and keep eager activity dispatch (`maxEagerActivityReservationsPerWorkflowTask` above 0): it hands each
   * step's model call and tool call to this worker with the workflow task's completion, without a task round trip.
   * Size `maxCachedWorkflows` for the runs that wait at once instead (a waiting run costs tens of KB).
   */
  worker?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath'>>;
}

/**
 * Builds a Temporal worker hosting the `agentRun` workflow and every activity for the given agents: a worker with
 * {@link DurableAgentPlugin} and nothing else. Secrets (model keys, MCP tokens) stay here, in the worker's
 * configuration; nothing of them reaches history. The worker's MCP connections close when it stops running.
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  // Built before connecting, so a bad key or exporter in the environment fails fast and leaves no connection open.
  const plugin = new DurableAgentPlugin({
    agents: options.agents,
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.maxToolOutputBytes !== undefined ? { maxToolOutputBytes: options.maxToolOutputBytes } : {}),
    ...(options.elicitationHoldMs !== undefined ? { elicitationHoldMs: options.elicitationHoldMs } : {}),
    ...(options.transcriptCache ? { transcriptCache: options.transcriptCache } : {}),
    ...(options.progressIntervalMs !== undefined ? { progressIntervalMs: options.progressIntervalMs } : {}),
    ...(options.payloadCodec !== undefined ? { payloadCodec: options.payloadCodec } : {}),
    ...(options.telemetry !== undefined ? { telemetry: options.telemetry } : {}),
  });
  const settings = resolveConnection(options);
  // Before the first connection: the runtime, and so its logger, is per process.
  if (!options.connection) installQuietRuntime(options.env);
  const connection = options.connection ?? (await connectWorker(settings));
  const worker = await Worker.create({
    ...options.worker,
    connection,
    namespace: settings.namespace,
    taskQueue: options.taskQueue ?? (options.env ?? process.env).TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    plugins: [plugin, ...(options.worker?.plugins ?? [])],
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
  });
  return plugin.closeWhenStopped(worker);
}
