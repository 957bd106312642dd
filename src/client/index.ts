// The client side: start runs, watch them, decide, cancel. Loads no native Temporal worker code.
export { AgentClient, type AgentClientOptions, type StartRunOptions } from './agent-client.js';
export {
  AgentRun,
  type AgentRunOptions,
  type AgentRunResult,
  type DecisionOptions,
  type RunToolCall,
  type RunToolResult,
} from './agent-run.js';
export { DEFAULT_REQUEST_TIMEOUT_MS } from './through-worker.js';
export { NoWorkerError, type NoWorkerErrorDetails } from './errors/no-worker-error.js';
export { WorkerTimeoutError, type WorkerTimeoutErrorDetails } from './errors/worker-timeout-error.js';
export { RunRequestRejectedError } from './errors/run-request-rejected-error.js';
