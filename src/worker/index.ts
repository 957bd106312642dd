// `durable-agent/worker`: host agents on a Temporal worker — the worker factory, the activities, model providers, the
// payload codec, limits, and the embedded dev server.
export { createAgentWorker, workflowsPath, type AgentWorkerOptions } from './create-agent-worker.js';
export { createActivities, type CreateActivitiesOptions } from '../../activities/index.js';
export { DEFAULT_WORKER_LIMITS, type WorkerLimits } from '../../activities/limits.js';
export { resolveTemporalBinary, startDevServer, type DevServer, type DevServerOptions } from './dev-server.js';
export * from '../models/index.js';
export * from '../codec/index.js';
export { REDACTED, redactSecrets, registerSecret } from '../secrets/index.js';
export { connectWorker } from '../connection/connect-worker.js';
