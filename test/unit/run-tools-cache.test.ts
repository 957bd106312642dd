// Per-run tool sets on a worker: resolved once per run, the least recently used run evicted first, and a failed
// resolution never cached.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunToolsCache } from '../../src/runtime/dependencies.js';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';

const run = { context: {} };
const ref = (runId: string) => ({ workflowId: 'wf', runId });

/** An agent whose per-run `tools` function counts its calls, and throws while `failing` is set. */
function countingAgent() {
  const state = { calls: 0, failing: false };
  const agent = new Agent({
    name: 'counting',
    instructions: '',
    model: new ScriptedLanguageModel([]),
    tools: () => {
      state.calls++;
      if (state.failing) throw new Error('tools unavailable');
      return [createTool({ name: 'echo', description: 'Echoes.', parameters: z.object({}), execute: async () => 1 })];
    },
  });
  return { agent, state };
}

describe('RunToolsCache', () => {
  it('resolves once per run and evicts the least recently used run past maxRuns', async () => {
    const { agent, state } = countingAgent();
    const cache = new RunToolsCache(2);
    const first = await cache.get(agent, ref('a'), run);
    expect(await cache.get(agent, ref('a'), run)).toBe(first);
    await cache.get(agent, ref('b'), run);
    await cache.get(agent, ref('a'), run); // 'a' is now the most recently used
    await cache.get(agent, ref('c'), run); // evicts 'b'
    expect(state.calls).toBe(3);
    await cache.get(agent, ref('a'), run);
    expect(state.calls).toBe(3);
    await cache.get(agent, ref('b'), run);
    expect(state.calls).toBe(4);
  });

  it('does not cache a failed resolution', async () => {
    const { agent, state } = countingAgent();
    const cache = new RunToolsCache();
    state.failing = true;
    await expect(cache.get(agent, ref('a'), run)).rejects.toThrow('tools unavailable');
    state.failing = false;
    expect((await cache.get(agent, ref('a'), run)).getToolByName('echo')).toBeDefined();
    expect(state.calls).toBe(2);
  });
});
