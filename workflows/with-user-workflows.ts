// The workflow bundle's entry when the agent plugin joins a worker that has workflows of its own: every workflow
// of the worker's own module (aliased at bundle time by `DurableAgentPlugin.configureBundler`) plus `agentRun`.
// An explicit export wins over a star export, so a module that already re-exports `agentRun` is fine too.
export * from '__durable_agent_user_workflows__';
export { agentRun } from './agent-run.js';
export { durableAgentConversation } from './conversation.js';
