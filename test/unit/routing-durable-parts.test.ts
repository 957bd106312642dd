// The durable routing parts without a server: the workflow's searched set and warm-up bookkeeping, its callTool
// check, and how the generate activity marks a routed run's searchTools/callTool calls for the workflow.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkRoutedCall, type DirectCallCheck } from '../../activities/routed-tool-calls.js';
import type { RawToolCall } from '../../src/models/call-model.js';
import type { CheckedToolCall, ToolCallRoute } from '../../src/protocol/index.js';
import {
  resolveRunToolPool,
  resolveRunToolRouting,
  type RunToolRouting,
} from '../../src/routing/resolve-run-routing.js';
import { ToolSearchService } from '../../src/routing/tool-search-service.js';
import type { RunToolRoutingOverride, ToolRoutingConfig } from '../../src/routing/types.js';
import { evaluateNeedsApproval } from '../../src/tool/approval.js';
import { checkToolCall } from '../../src/tool/check-tool-call.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import { createTool } from '../../src/tool/tool.js';
import { CountingEmbeddingModel } from '../fixtures/routing/counting-embedding-model.js';
import { RoutingState } from '../../workflows/routing-state.js';
import { searchRequired, targetCall } from '../../workflows/tool-search.js';

describe('RoutingState (workflow)', () => {
  it('remembers searched names, carries them, and carries nothing for a run that never searched', () => {
    const state = new RoutingState();
    expect(state.carry()).toBeUndefined();
    state.markSearched(['get_weather', 'send_email']);
    expect(state.wasSearched('get_weather')).toBe(true);
    expect(state.wasSearched('wire_money')).toBe(false);
    const next = new RoutingState(state.carry());
    expect(next.wasSearched('send_email')).toBe(true);
    expect(next.carry()).toEqual({ searched: ['get_weather', 'send_email'] });
  });

  it('bounds the searched set, dropping the least recently returned names', () => {
    const state = new RoutingState();
    state.markSearched(['first']);
    state.markSearched(Array.from({ length: 10_000 }, (_, i) => `tool_${i}`));
    expect(state.wasSearched('first')).toBe(false);
    state.markSearched(['tool_0']); // returned again: now the most recent
    state.markSearched(['last']);
    expect(state.wasSearched('tool_0')).toBe(true);
    expect(state.wasSearched('tool_1')).toBe(false);
    expect(state.carry()!.searched).toHaveLength(10_000);
  });

  it('starts one warm-up per embedding model per run; concurrent searches share it', async () => {
    const state = new RoutingState();
    let started = 0;
    let finish!: () => void;
    const start = () => {
      started++;
      return new Promise<void>((resolve) => (finish = resolve));
    };
    const first = state.warmUp('m', start);
    const second = state.warmUp('m', start);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    finish();
    await first;
    expect(state.warmUp('m', start)).toBeUndefined();
    expect(started).toBe(1);
    // Carried over continue-as-new: the next execution does not warm that model again.
    const next = new RoutingState(state.carry());
    expect(next.warmUp('m', start)).toBeUndefined();
    expect(next.warmUp('other', async () => undefined)).toBeDefined();
  });

  it('refuses an unsearched callTool target only while enforced, and builds the target call', () => {
    const state = new RoutingState();
    const route: ToolCallRoute = {
      kind: 'call',
      target: 'get_weather',
      args: { city: 'Oslo' },
      enforceSearchBeforeCall: true,
    };
    expect(searchRequired(state, route)).toMatch(/^Tool "get_weather" must be searched via searchTools/);
    expect(searchRequired(state, { ...route, enforceSearchBeforeCall: false })).toBeUndefined();
    expect(searchRequired(state, { kind: 'search', query: 'q', topK: 1 })).toBeUndefined();
    state.markSearched(['get_weather']);
    expect(searchRequired(state, route)).toBeUndefined();
    const call: CheckedToolCall = {
      toolCallId: 'c1',
      toolName: 'callTool',
      status: 'valid',
      needsApproval: true,
      clientSide: false,
      activity: { startToCloseTimeout: '45s' },
      route,
    };
    expect(targetCall(call, route)).toEqual({
      toolCallId: 'c1',
      toolName: 'get_weather',
      status: 'valid',
      needsApproval: true,
      clientSide: false,
      activity: { startToCloseTimeout: '45s' },
      via: 'callTool',
    });
  });
});

describe('checkRoutedCall (generate activity)', () => {
  const weather = createTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: z.object({ city: z.string(), days: z.number().default(1) }),
    activity: { startToCloseTimeout: '45s' },
    needsApproval: async ({ city }) => city === 'Pyongyang',
    execute: async () => 'sunny',
  });
  const tagItems = createTool({
    name: 'tag_items',
    description: 'Tag items.',
    parameters: z.object({ ids: z.array(z.string()) }),
    execute: async () => 'ok',
  });
  const getTime = createTool({
    name: 'get_time',
    description: 'Time.',
    parameters: z.object({}),
    execute: () => 'now',
  });
  const service = new ToolSearchService();

  function routed(config: ToolRoutingConfig = {}): Extract<RunToolRouting, { enabled: true }> {
    const routing = resolveRunToolRouting({ tools: new ToolManager([weather, tagItems]), config, service });
    if (!routing.enabled) throw new Error('expected routing');
    return routing;
  }

  // The generate activity's own check, built from the same library parts (schema check, then approval).
  const asked: Array<{ names: string[]; call: RawToolCall }> = [];
  const direct: DirectCallCheck = async (lookup, call) => {
    asked.push({ names: lookup.getAllToolNames(), call });
    const check = await checkToolCall(lookup, call.toolName, call.input);
    if (check.kind !== 'valid')
      return { toolCallId: call.toolCallId, toolName: call.toolName, status: 'invalid', error: check.message };
    const needsApproval = await evaluateNeedsApproval(check.tool, check.args, {
      toolCallId: call.toolCallId,
      messages: [],
      context: new Map(),
    });
    return {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      status: 'valid',
      needsApproval,
      clientSide: false,
      ...(check.tool.activity ? { activity: check.tool.activity } : {}),
    };
  };
  const raw = (toolName: string, input: unknown, toolCallId = 'x1'): RawToolCall => ({ toolCallId, toolName, input });

  it('marks a search with its effective top-K (call > config > embedding config > 1, capped at 20)', async () => {
    expect(await checkRoutedCall(routed(), raw('searchTools', { query: 'weather' }), direct)).toEqual({
      toolCallId: 'x1',
      toolName: 'searchTools',
      status: 'valid',
      needsApproval: false,
      clientSide: false,
      route: { kind: 'search', query: 'weather', topK: 1 },
    });
    const model = new CountingEmbeddingModel({ maxEmbeddingsPerCall: 1 });
    const embedding = routed({ embedding: { model, topK: 4 } });
    expect(await checkRoutedCall(embedding, raw('searchTools', { query: 'w' }), direct)).toMatchObject({
      route: {
        kind: 'search',
        topK: 4,
        embedding: { modelKey: 'counting/hashed-bow', batchSize: 1, poolSize: 2, batches: 2 },
      },
    });
    expect(
      await checkRoutedCall(routed({ topK: 3 }), raw('searchTools', { query: 'w', topK: 50 }), direct),
    ).toMatchObject({
      route: { topK: 20 },
    });
    // The query is model output: its schema refuses a blank one (no route: nothing for the workflow to do).
    const blank = await checkRoutedCall(routed(), raw('searchTools', { query: '  ' }), direct);
    expect(blank).toMatchObject({
      status: 'invalid',
      error: expect.stringMatching(/Invalid input for tool searchTools/),
    });
    expect(blank).not.toHaveProperty('route');
  });

  it('answers a search with what is wrong when the embedding model cannot be built, keeping the response', async () => {
    const broken = routed({ embedding: 'nowhere/embedder' });
    const checked = await checkRoutedCall(broken, raw('searchTools', { query: 'weather' }), direct);
    expect(checked).toMatchObject({
      status: 'invalid',
      error: expect.stringMatching(/^Tool search is unavailable on this worker \(.*nowhere.*\)\. Answer without/),
    });
    expect(checked).not.toHaveProperty('route');
  });

  it("leaves the model's own arguments out of a callTool route when the workflow reads them from the call", async () => {
    const call = raw('callTool', { name: 'tag_items', args: { ids: ['a', 'b'] } });
    const once = await checkRoutedCall(routed(), call, direct, { argsFromCall: true });
    expect(once).toMatchObject({ status: 'valid', route: { kind: 'call', target: 'tag_items' } });
    expect(once.route).not.toHaveProperty('args');
    // An earlier workflow reads them from the route only.
    expect(await checkRoutedCall(routed(), call, direct)).toMatchObject({ route: { args: { ids: ['a', 'b'] } } });
    // Written as a JSON string, unchanged by validation: the workflow parses them from the call too.
    const string = raw('callTool', { name: 'tag_items', args: '{"ids":["a"]}' });
    const written = await checkRoutedCall(routed(), string, direct, { argsFromCall: true });
    expect(written).toMatchObject({ status: 'valid', route: { kind: 'call', target: 'tag_items' } });
    expect(written.route).not.toHaveProperty('args');
    // Arguments that validation changed (a JSON string inside them parsed) travel in the route, in either form.
    for (const args of [{ ids: '["a"]' }, JSON.stringify({ ids: '["a"]' })]) {
      const changed = raw('callTool', { name: 'tag_items', args });
      expect(await checkRoutedCall(routed(), changed, direct, { argsFromCall: true })).toMatchObject({
        route: { args: { ids: ['a'] } },
      });
    }
  });

  it("marks a valid callTool with the target's approval (evaluated on its args), options and validated args", async () => {
    const checked = await checkRoutedCall(
      routed(),
      raw('callTool', { name: 'get_weather', args: '{"city":"Pyongyang"}' }),
      direct,
    );
    expect(checked).toEqual({
      toolCallId: 'x1',
      toolName: 'callTool',
      status: 'valid',
      needsApproval: true,
      clientSide: false,
      activity: { startToCloseTimeout: '45s' },
      // As validated, before defaults: the target's executeTool activity validates them again.
      route: { kind: 'call', target: 'get_weather', args: { city: 'Pyongyang' }, enforceSearchBeforeCall: true },
    });
    expect(asked.at(-1)).toMatchObject({ names: ['get_weather'], call: { toolName: 'get_weather' } });
    const oslo = await checkRoutedCall(
      routed(),
      raw('callTool', { name: 'get_weather', args: { city: 'Oslo' } }),
      direct,
    );
    expect(oslo).toMatchObject({ needsApproval: false });
    const coerced = await checkRoutedCall(
      routed(),
      raw('callTool', { name: 'tag_items', args: { ids: '["a"]' } }),
      direct,
    );
    expect(coerced).toMatchObject({ status: 'valid', route: { args: { ids: ['a'] } } });
  });

  it('leaves the searched check to the workflow: bad target args are marked, other refusals are not', async () => {
    const bad = await checkRoutedCall(routed(), raw('callTool', { name: 'tag_items', args: { ids: 3 } }), direct);
    expect(bad).toMatchObject({
      status: 'invalid',
      error: expect.stringMatching(/^Invalid arguments for tool "tag_items"/),
      route: { kind: 'call', target: 'tag_items', args: null, enforceSearchBeforeCall: true },
    });
    const missing = await checkRoutedCall(routed(), raw('callTool', { name: 'nope' }), direct);
    expect(missing).toMatchObject({ status: 'invalid', error: expect.stringMatching(/^Tool not found in pool: nope/) });
    expect(missing).not.toHaveProperty('route');
    const own = await checkRoutedCall(routed(), raw('callTool', { args: {} }), direct);
    expect(own).toMatchObject({ status: 'invalid', error: expect.stringMatching(/^Invalid input for tool callTool/) });
    const unenforced = await checkRoutedCall(
      routed({ enforceSearchBeforeCall: false }),
      raw('callTool', { name: 'get_weather', args: { city: 'Oslo' } }),
      direct,
    );
    expect(unenforced).toMatchObject({ route: { enforceSearchBeforeCall: false } });
  });

  it('checks any other visible tool as a direct call, and nothing that is only pooled', async () => {
    const withTime = routed({ expose: [getTime] });
    expect(await checkRoutedCall(withTime, raw('get_time', {}), direct)).toMatchObject({
      status: 'valid',
      toolName: 'get_time',
    });
    expect(asked.at(-1)!.names).toEqual(['searchTools', 'callTool', 'get_time']);
    expect(await checkRoutedCall(withTime, raw('get_weather', { city: 'Oslo' }), direct)).toMatchObject({
      status: 'invalid',
      error: "Model tried to call unavailable tool 'get_weather'. Available tools: searchTools, callTool, get_time.",
    });
  });
});

describe('resolveRunToolPool (executeTool of a callTool target)', () => {
  const tool = (name: string) =>
    createTool({ name, description: `The ${name} tool.`, parameters: z.object({}), execute: async () => name });
  const [a, b, c, searchTools] = [tool('a'), tool('b'), tool('c'), tool('searchTools')];
  const tools = new ToolManager([a, b, searchTools]);
  const service = new ToolSearchService();
  const names = (pool: { getAllTools(): { name: string }[] } | undefined) => pool?.getAllTools().map((t) => t.name);

  it.each([
    ['the registered tools', {}, undefined],
    ['an explicit pool', { pool: [c] }, undefined],
    ['the run turning routing on', undefined, true],
    ["the run's own pool", { pool: [c] }, { pool: ['a', 'c'] }],
    ["the run's other settings", { pool: [c] }, { topK: 2 }],
  ] as Array<[string, ToolRoutingConfig | undefined, RunToolRoutingOverride | undefined]>)(
    "pools what the run's router pools: %s",
    (_name, config, override) => {
      const input = { tools, config, override };
      const router = resolveRunToolRouting({ ...input, service });
      expect(router.enabled).toBe(true);
      const pool = resolveRunToolPool(input);
      expect(names(pool)).toEqual(router.enabled ? names(router.router.pool()) : undefined);
      for (const name of ['a', 'b', 'c', 'searchTools']) {
        expect(pool?.getToolByName(name)).toBe(router.enabled ? router.router.pool().getToolByName(name) : undefined);
      }
    },
  );

  it('is undefined for a run that is not routed', () => {
    expect(resolveRunToolPool({ tools, config: undefined })).toBeUndefined();
    expect(resolveRunToolPool({ tools, config: { pool: [c] }, override: false })).toBeUndefined();
  });
});
