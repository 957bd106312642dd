const MARKER = Symbol.for('durable-agent.error.AgentPluginError');

/** Why the agent plugin refused a worker's configuration. */
export type AgentPluginErrorCode = 'ACTIVITY_NAME_TAKEN' | 'MISSING_CREDENTIALS';

/**
 * Thrown while a worker is being created with `DurableAgentPlugin` when the worker's own configuration clashes with
 * what the plugin adds (for example an activity of the same name as one of the agent's). The message says what to
 * rename.
 */
export class AgentPluginError extends Error {
  private readonly [MARKER] = true;
  readonly code: AgentPluginErrorCode;

  constructor(code: AgentPluginErrorCode, message: string) {
    super(message);
    this.name = 'AgentPluginError';
    this.code = code;
  }
}

/** True for an {@link AgentPluginError} from any copy of this package or realm. */
export function isAgentPluginError(value: unknown): value is AgentPluginError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
