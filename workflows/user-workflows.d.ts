// The worker's own workflows module, resolved by the bundler hook of `DurableAgentPlugin` (see
// `src/worker/workflow-paths.ts`); it has no type of its own here.
declare module '__durable_agent_user_workflows__';
