import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.AgentPluginError');

/** Why the agent plugin refused a worker's configuration. */
export type AgentPluginErrorCode = 'Plugin.ActivityNameTaken' | 'Plugin.MissingCredentials';

/**
 * Thrown while a worker is being created with `DurableAgentPlugin` when the worker's own configuration clashes with
 * what the plugin adds (for example an activity of the same name as one of the agent's). The message says what to
 * rename.
 */
export class AgentPluginError extends DurableAgentError {
  private readonly [MARKER] = true;
  declare readonly code: AgentPluginErrorCode;

  constructor(code: AgentPluginErrorCode, message: string) {
    super({ code, message });
    this.name = 'AgentPluginError';
  }

  /** True for a {@link AgentPluginError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is AgentPluginError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
