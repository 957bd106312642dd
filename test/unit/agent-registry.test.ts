import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { AgentNotFoundError } from '../../src/agent/agent-not-found-error.js';
import { AgentRegistry } from '../../src/agent/registry.js';

const assistant = new Agent({ name: 'assistant', instructions: 'i' });
const planner = new Agent({ name: 'planner', instructions: 'i' });

describe('AgentRegistry', () => {
  it('registers, finds and lists agents in order', () => {
    const registry = new AgentRegistry().register(assistant).register(planner);
    expect(registry.get('planner')).toBe(planner);
    expect(registry.has('assistant')).toBe(true);
    expect(registry.list()).toEqual([assistant, planner]);
    expect(AgentRegistry.from([assistant]).list()).toEqual([assistant]);
  });

  it('throws a clear error naming the known agents for an unknown name', () => {
    const registry = new AgentRegistry([assistant, planner]);
    expect(() => registry.get('writer')).toThrow(AgentNotFoundError);
    expect(() => registry.get('writer')).toThrow("Unknown agent 'writer'. Known agents: assistant, planner.");
    expect(() => registry.get('__proto__')).toThrow(AgentNotFoundError);
    expect(registry.has('constructor')).toBe(false);
  });

  it('refuses a different agent under a taken name, and ignores re-registering the same one', () => {
    const registry = new AgentRegistry([assistant]);
    expect(() => registry.register(assistant)).not.toThrow();
    expect(() => registry.register(new Agent({ name: 'assistant', instructions: 'other' }))).toThrow(
      "An agent named 'assistant' is already registered",
    );
  });
});
