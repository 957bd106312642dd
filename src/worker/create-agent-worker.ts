import type { PayloadCodec } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { type Agent } from '../agent/agent.js';
import { type AgentRegistry } from '../agent/registry.js';
import { type ProviderRegistry } from '../models/provider-registry.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/index.js';
import type { AgentTelemetry } from '../telemetry/agent-telemetry.js';
import { DurableAgentPlugin } from './plugin.js';

export { workflowsPath } from './workflow-paths.js';

/** Options of `createAgentWorker`. */
export interface AgentWorkerOptions {
  /** The agents this worker hosts, by name. */
  agents: Agent[] | AgentRegistry;
  /** Task queue to poll. Default: `TEMPORAL_TASK_QUEUE` or `durable-agent`. */
  taskQueue?: string;
  /** An existing connection; otherwise one is made to `address` / `TEMPORAL_ADDRESS` / `localhost:7233`. */
  connection?: NativeConnection;
  address?: string;
  /** Default: `TEMPORAL_NAMESPACE` or `default`. */
  namespace?: string;
  /** Model providers; default: OpenAI from the environment plus the offline stand-in. */
  providers?: ProviderRegistry;
  /** Tool outputs over this many JSON bytes reach the model as an error instead of being recorded. */
  maxToolOutputBytes?: number;
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
   * plugins, …). Unset heartbeat and shutdown settings get `AGENT_WORKER_DEFAULTS`.
   */
  worker?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath'>>;
}

/**
 * Builds a Temporal worker hosting the `agentRun` workflow and every activity for the given agents: a worker with
 * {@link DurableAgentPlugin} and nothing else. Secrets (model keys, MCP tokens) stay here, in the worker's
 * configuration; nothing of them reaches history.
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  // Built before connecting, so a bad key or exporter in the environment fails fast and leaves no connection open.
  const plugin = new DurableAgentPlugin({
    agents: options.agents,
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.maxToolOutputBytes !== undefined ? { maxToolOutputBytes: options.maxToolOutputBytes } : {}),
    ...(options.progressIntervalMs !== undefined ? { progressIntervalMs: options.progressIntervalMs } : {}),
    ...(options.payloadCodec !== undefined ? { payloadCodec: options.payloadCodec } : {}),
    ...(options.telemetry !== undefined ? { telemetry: options.telemetry } : {}),
  });
  const connection =
    options.connection ??
    (await NativeConnection.connect({ address: options.address ?? process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' }));
  return await Worker.create({
    ...options.worker,
    connection,
    namespace: options.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: options.taskQueue ?? process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    plugins: [plugin, ...(options.worker?.plugins ?? [])],
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
  });
}
