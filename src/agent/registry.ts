import type { Agent } from './agent.js';
import { AgentNotFoundError } from './agent-not-found-error.js';

/**
 * The agents a worker hosts, by name. Activities look agents up here, so a run only ever carries the agent's
 * name, never its code.
 */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();

  constructor(agents: Iterable<Agent> = []) {
    for (const agent of agents) this.register(agent);
  }

  /** A registry holding the given agents. */
  static from(agents: Iterable<Agent>): AgentRegistry {
    return new AgentRegistry(agents);
  }

  /** Adds an agent. Registering a different agent under a taken name throws; the same agent again is a no-op. */
  register(agent: Agent): this {
    const existing = this.agents.get(agent.name);
    if (existing && existing !== agent) throw new Error(`An agent named '${agent.name}' is already registered`);
    this.agents.set(agent.name, agent);
    return this;
  }

  /** The agent of this name; throws {@link AgentNotFoundError} naming the known agents. */
  get(name: string): Agent {
    const agent = this.agents.get(name);
    if (!agent) throw new AgentNotFoundError(name, [...this.agents.keys()]);
    return agent;
  }

  /** True when an agent of this name is registered. */
  has(name: string): boolean {
    return this.agents.has(name);
  }

  /** Every registered agent, in registration order. */
  list(): Agent[] {
    return [...this.agents.values()];
  }
}
