/** Name of the agent-loop workflow type. */
export const AGENT_RUN_WORKFLOW = 'agentRun';

/** Default task queue when none is configured. */
export const DEFAULT_TASK_QUEUE = 'durable-agent';

/** Default step budget of a run. */
export const DEFAULT_MAX_STEPS = 10;

/** Continue-as-new once a run's history has this many events, if Temporal has not suggested it earlier. */
export const DEFAULT_HISTORY_EVENT_BUDGET = 10_000;

/** Failure types that cross the activity and workflow boundary. Stable strings: clients match on them. */
export const FailureType = {
  ToolDenied: 'Tool.Denied',
  ToolOutputTooLarge: 'Tool.OutputTooLarge',
  AgentNotFound: 'Agent.NotFound',
  TranscriptUnavailable: 'Transcript.Unavailable',
} as const;
