import { DurableAgentError } from '../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.AgentNotFoundError');

/** Thrown when a run names an agent the worker does not host. Register the agent with the worker to fix it. */
export class AgentNotFoundError extends DurableAgentError {
  private readonly [MARKER] = true;

  constructor(
    /** The name that was asked for. */
    readonly agentName: string,
    /** The names the registry knows. */
    readonly knownAgents: readonly string[],
  ) {
    const known = knownAgents.length > 0 ? `Known agents: ${knownAgents.join(', ')}.` : 'No agents are registered.';
    super({ code: 'Agent.NotFound', message: `Unknown agent '${agentName}'. ${known}` });
    this.name = 'AgentNotFoundError';
  }

  /** True for a {@link AgentNotFoundError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is AgentNotFoundError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
