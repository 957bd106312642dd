// `durable-agent/worker`: host agents on a Temporal worker — the agent plugin for existing workers, the ready-made
// agent worker, graceful shutdown, the activities, model providers, the payload codec, limits, telemetry, and the
// embedded dev server.
export { AGENT_WORKER_DEFAULTS, DurableAgentPlugin, type DurableAgentPluginOptions } from './plugin.js';
export { createAgentWorker, type AgentWorkerOptions } from './create-agent-worker.js';
export { runUntilSignal, type RunUntilSignalOptions } from './run-until-signal.js';
export { DurableAgentError, type DurableAgentErrorOptions } from '../errors/durable-agent-error.js';
export { AgentPluginError, type AgentPluginErrorCode } from './errors/agent-plugin-error.js';
export { USER_WORKFLOWS_ALIAS, combinedWorkflowsPath, workflowsPath } from './workflow-paths.js';
export {
  ensureTemporalBinary,
  resolveTemporalBinary,
  startDevServer,
  temporalCacheDir,
  type DevServer,
  type DevServerOptions,
} from './dev-server.js';
export { createActivities, type CreateActivitiesOptions } from '../../activities/index.js';
export { DEFAULT_WORKER_LIMITS, type WorkerLimits } from '../runtime/limits.js';
export type { AgentRuntimeOptions } from '../runtime/options.js';
export { McpRuntime } from '../runtime/mcp-runtime.js';
export * from '../models/index.js';
export * from '../codec/index.js';
export * from '../telemetry/index.js';
export { REDACTED, redactSecrets, registerSecret } from '../secrets/index.js';
export { connectWorker } from '../connection/connect-worker.js';
export { projectTaskQueue, type ProjectTaskQueueOptions } from '../connection/project-task-queue.js';
export { LOG_LEVEL_ENV, installQuietRuntime, workerLogLevel } from './worker-log-level.js';
export { checkAgentCredentials } from './check-credentials.js';
