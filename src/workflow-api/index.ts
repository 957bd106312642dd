// The workflow-side API of durable-agent (the `durable-agent/workflow` entry): safe to import from a team's own
// workflow code. It never re-exports worker-side code.
export { executeAgentRun, startAgentRun, type AgentChildRunOptions, type AgentRunWorkflow } from './agent-child-run.js';
export { agentRun } from '../../workflows/agent-run.js';
