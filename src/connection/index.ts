// Connecting to any Temporal: settings from options, TEMPORAL_* variables and temporal.toml profiles, and
// connection errors that say what to check. `connectWorker` loads native code: import it from
// './connect-worker.js' on the worker side only; everything here is safe for clients.
export type {
  ConnectionSettings,
  ResolvedTls,
  SettingSource,
  TemporalConnectionOptions,
} from './connection-options.js';
export { DEFAULT_TEMPORAL_ADDRESS, DEFAULT_TEMPORAL_NAMESPACE, resolveConnection } from './resolve-connection.js';
export { toConnectOptions, type ConnectOptions } from './to-connect-options.js';
export { connectClient, type ConnectClientOptions } from './connect-client.js';
export { describeOrigin } from './describe-connection.js';
export { ConnectionConfigError } from './errors/connection-config-error.js';
export { TemporalConnectionError, type TemporalConnectionErrorDetails } from './errors/temporal-connection-error.js';
export {
  projectTaskQueue,
  resolveProjectTaskQueue,
  type ProjectTaskQueue,
  type ProjectTaskQueueOptions,
} from './project-task-queue.js';
