/** Name of the agent-loop workflow type. */
export const AGENT_RUN_WORKFLOW = 'agentRun';

/** Default task queue when none is configured. */
export const DEFAULT_TASK_QUEUE = 'durable-agent';

/** Default step budget of a run. */
export const DEFAULT_MAX_STEPS = 10;

/** Tool activities of one step that run at once, unless the agent sets `toolConcurrency`. */
export const DEFAULT_TOOL_CONCURRENCY = 32;

/** Attempts of `mcpListTools` before a server is reported as failed and the run goes on without it. */
export const MCP_LIST_ATTEMPTS = 3;

/**
 * How long a run's first model call waits for its MCP servers' listings (ms), unless the agent's MCPConfiguration
 * sets `listBudget`. A server still listing then is late: the run goes on without it and offers its tools from the
 * next model call after its listing arrives (docs/mcp.md, docs/limits.md).
 */
export const MCP_LIST_BUDGET_MS = 5_000;

/** How often a tool call may be re-issued after waiting for an MCP elicitation answer before it gives up. */
export const MAX_ELICITATION_REISSUES = 16;

/** Continue-as-new once a run's history has this many events, if Temporal has not suggested it earlier. */
export const DEFAULT_HISTORY_EVENT_BUDGET = 10_000;

/** Failure types that cross the activity and workflow boundary. Stable strings: clients match on them. */
export const FailureType = {
  ToolDenied: 'Tool.Denied',
  ToolOutputTooLarge: 'Tool.OutputTooLarge',
  ToolCheckpointTooLarge: 'Tool.CheckpointTooLarge',
  AgentNotFound: 'Agent.NotFound',
  AgentSystemPromptTooLarge: 'Agent.SystemPromptTooLarge',
  ApprovalRefused: 'Approval.Refused',
  /** An MCP server asked a question the run would not keep (over a bound, or refused): the call ended on it. */
  ElicitationRefused: 'Mcp.ElicitationRefused',
  InputRefused: 'Run.InputRefused',
  TranscriptUnavailable: 'Transcript.Unavailable',
  /** A run's tool routing cannot be resolved (an override naming tools the agent lacks). Not retryable. */
  RoutingInvalidConfig: 'Routing.InvalidConfig',
  /** A custom `ToolSearchStrategy` threw. Retryable (it may do I/O); the model reads the error after the last attempt. */
  RoutingStrategyFailed: 'Routing.StrategyFailed',
} as const;

/**
 * Bounds on what clients send a run by signal or update (docs/limits.md). A signal cannot be refused before it is
 * recorded, so the workflow ignores what is past these; an update's validator rejects it.
 */
export const INPUT_LIMITS = {
  /** Decisions kept for requests not made yet (only when the agent allows early decisions). */
  earlyDecisions: 64,
  /** Characters of a decision's `reason`. */
  reasonChars: 2_000,
  /** Characters of a decision's `approver`. */
  approverChars: 200,
  /** UTF-8 bytes of a decision's `identity` evidence. */
  identityBytes: 8_192,
  /** UTF-8 bytes of a client-side tool result. */
  toolResultBytes: 1_500_000,
  /** Client-side results kept for calls not asked about yet. */
  earlyToolResults: 64,
} as const;
