// `durable-agent/workflow`: what workflow code may import — the `agentRun` workflow (re-export it from your own
// workflows module to host agents beside your workflows), child agent runs from your workflows, its signals, queries
// and updates, and the workflow-safe protocol (types, constants, pure functions). No Node built-ins, no SDKs: safe in
// Temporal's workflow sandbox.
export { agentRun } from '../../workflows/agent-run.js';
export { durableAgentConversation, type ConversationOutput } from '../../workflows/conversation.js';
export * from '../protocol/conversation.js';
export {
  executeAgentRun,
  startAgentRun,
  type AgentChildRunOptions,
  type AgentRunWorkflow,
} from '../workflow-api/agent-child-run.js';
export * from '../protocol/run-messages.js';
export * from '../protocol/index.js';
