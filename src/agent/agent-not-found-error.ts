const MARKER = Symbol.for('durable-agent.error.AgentNotFoundError');

/** Thrown when a run names an agent the worker does not host. Register the agent with the worker to fix it. */
export class AgentNotFoundError extends Error {
  private readonly [MARKER] = true;

  constructor(
    /** The name that was asked for. */
    readonly agentName: string,
    /** The names the registry knows. */
    readonly knownAgents: readonly string[],
  ) {
    const known = knownAgents.length > 0 ? `Known agents: ${knownAgents.join(', ')}.` : 'No agents are registered.';
    super(`Unknown agent '${agentName}'. ${known}`);
    this.name = 'AgentNotFoundError';
  }
}

/** True for an {@link AgentNotFoundError} from any copy of this package. */
export function isAgentNotFoundError(value: unknown): value is AgentNotFoundError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
