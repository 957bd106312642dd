import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { connectWorker } from '../connection/connect-worker.js';
import type { TemporalConnectionOptions } from '../connection/connection-options.js';
import { resolveConnection } from '../connection/resolve-connection.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/index.js';
import { DurableAgentPlugin, type DurableAgentPluginOptions } from './plugin.js';
import { installQuietRuntime } from './worker-log-level.js';

export { workflowsPath } from './workflow-paths.js';

/**
 * Options of `createAgentWorker`: the plugin's (agents, runtime options, payload codec, tracing) plus where to
 * connect and what else the worker takes. Where to connect (`address`, `namespace`, `apiKey`, `tls`, `profile`, …)
 * comes from Temporal's environment configuration (`TEMPORAL_*` variables, `temporal.toml` profiles) unless given.
 * Clients of this worker's runs need the same payload codec.
 */
export interface AgentWorkerOptions extends DurableAgentPluginOptions, TemporalConnectionOptions {
  /** Task queue to poll. Default: `TEMPORAL_TASK_QUEUE` (of `env`) or `durable-agent`. */
  taskQueue?: string;
  /** An existing connection; otherwise one is made from the connection settings. */
  connection?: NativeConnection;
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
 * configuration; nothing of them reaches history. The worker's MCP connections close when it stops running (the
 * plugin's run context).
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  // Built before connecting, so a bad key or exporter in the environment fails fast and leaves no connection open.
  const plugin = new DurableAgentPlugin(options);
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
  return worker;
}
