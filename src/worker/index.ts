// Worker-side entry points: the agent plugin for existing workers, the ready-made agent worker, graceful shutdown,
// and the workflow entry paths the bundler uses.
export { AGENT_WORKER_DEFAULTS, DurableAgentPlugin, type DurableAgentPluginOptions } from './plugin.js';
export { createAgentWorker, type AgentWorkerOptions } from './create-agent-worker.js';
export { runUntilSignal, type RunUntilSignalOptions } from './run-until-signal.js';
export { AgentPluginError, isAgentPluginError, type AgentPluginErrorCode } from './errors/agent-plugin-error.js';
export { USER_WORKFLOWS_ALIAS, combinedWorkflowsPath, workflowsPath } from './workflow-paths.js';
export { resolveTemporalBinary, startDevServer, type DevServer, type DevServerOptions } from './dev-server.js';
