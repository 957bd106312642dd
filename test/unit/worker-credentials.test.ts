// A worker whose agents name a provider without credentials stops at start with one paragraph that says which
// agent, which model, which variable and the offline alternative, instead of failing every run later.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { AgentPluginError } from '../../src/worker/errors/agent-plugin-error.js';
import { DurableAgentPlugin } from '../../src/worker/plugin.js';

function startError(agents: Agent[], env: Record<string, string | undefined>): unknown {
  try {
    new DurableAgentPlugin({ agents, providers: new ProviderRegistry({ env }), telemetry: false, payloadCodec: false });
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('credentials at worker start', () => {
  it('names the agent, the model, the variable and offline/demo', () => {
    const error = startError(
      [
        new Agent({ name: 'fine', instructions: '', model: 'offline/demo' }),
        new Agent({ name: 'mailer', instructions: '', model: 'openai/gpt-4o-mini' }),
      ],
      {},
    );
    expect(AgentPluginError.isInstance(error) && error.code).toBe('Plugin.MissingCredentials');
    const message = (error as Error).message;
    expect(message).toContain("Agent 'mailer'");
    expect(message).toContain("'openai/gpt-4o-mini'");
    expect(message).toContain('set OPENAI_API_KEY');
    expect(message).toContain("'offline/demo'");
    // The guide to other providers, by a path that exists.
    const guide =
      /Other providers \(Anthropic, Google, a local server such as Ollama or vLLM\): (\S+providers\.md)$/.exec(message);
    expect(guide?.[1]).toBe(fileURLToPath(new URL('../../docs/providers.md', import.meta.url)));
    expect(existsSync(guide![1]!)).toBe(true);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('starts when the key is there, and for model objects and offline models', () => {
    const openai = new Agent({ name: 'mailer', instructions: '', model: 'openai/gpt-4o-mini' });
    expect(startError([openai], { OPENAI_API_KEY: 'sk-test' })).toBeUndefined();
    expect(startError([new Agent({ name: 'o', instructions: '', model: 'offline/demo' })], {})).toBeUndefined();
  });
});
