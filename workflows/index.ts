// The workflow bundle's entry: every workflow the worker hosts.
export { agentRun } from './agent-run.js';
export { durableAgentConversation } from './conversation.js';
