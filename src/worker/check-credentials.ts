// At worker start, every agent's model is resolved once, so an agent naming a provider without credentials stops
// the worker with a short paragraph instead of failing each run at its first model call, deep in a stack trace.
import { join } from 'node:path';
import type { AgentRegistry } from '../agent/registry.js';
import { MissingApiKeyError } from '../models/errors/missing-api-key-error.js';
import { defaultModelRef, type ProviderRegistry } from '../models/provider-registry.js';
import { AgentPluginError } from './errors/agent-plugin-error.js';
import { packageRoot } from './temporal-cli.js';

/**
 * Resolves each agent's language model (a model string, or the worker's default when it names none).
 *
 * @throws AgentPluginError (`Plugin.MissingCredentials`) naming the agent, the model, the variable to set, the offline
 * alternative and the guide to other providers, for the first agent whose provider has no key.
 */
export function checkAgentCredentials(
  agents: AgentRegistry,
  providers: ProviderRegistry,
  env: Record<string, string | undefined> = process.env,
): void {
  for (const agent of agents.list()) {
    // Model objects carry their own credentials; only strings are resolved by the registry.
    if (agent.model !== undefined && typeof agent.model !== 'string') continue;
    try {
      providers.resolveLanguageModel(agent.model);
    } catch (error) {
      if (!MissingApiKeyError.isInstance(error)) continue;
      const model = agent.model ?? defaultModelRef(env);
      throw new AgentPluginError(
        'Plugin.MissingCredentials',
        `Agent '${agent.name}' uses the model '${model}', which needs ${error.envVar}: set ${error.envVar} in the ` +
          `worker's environment (or pass the key to ProviderRegistry), or give the agent model 'offline/demo' ` +
          '(AGENT_MODEL=offline/demo for agents that name none), a rule-based stand-in that runs offline. Other ' +
          // The package ships its docs: the path is the installed copy's, readable where the worker runs.
          `providers (Anthropic, Google, a local server such as Ollama or vLLM): ${providersGuide()}`,
      );
    }
  }
}

/** docs/providers.md of this package, as a path (the package ships docs/). */
function providersGuide(): string {
  return join(packageRoot(), 'docs', 'providers.md');
}
