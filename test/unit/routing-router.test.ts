import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { CallToolRefusedError } from '../../src/routing/errors/call-tool-refused-error.js';
import { describeToolRouting } from '../../src/routing/describe-routing.js';
import { resolveRunToolRouting } from '../../src/routing/resolve-run-routing.js';
import { type ToolRouter, createToolRouter, type ToolRouterOptions } from '../../src/routing/tool-router.js';
import { ToolSearchService } from '../../src/routing/tool-search-service.js';
import type { ToolSearchResult, ToolSearchStrategy } from '../../src/routing/types.js';
import type { AgentToolHooks } from '../../src/tool/agent-hooks.js';
import { ToolDeniedError } from '../../src/tool/errors/tool-denied-error.js';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline, type ToolPipelineOutcome } from '../../src/tool/pipeline.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import { createTool, type AnyTool } from '../../src/tool/tool.js';
import { CountingEmbeddingModel } from '../fixtures/routing/counting-embedding-model.js';

const log: string[] = [];

function tool(name: string, description: string, extra: Partial<Parameters<typeof createTool>[0]> = {}): AnyTool {
  return createTool({
    name,
    description,
    parameters: z.object({ city: z.string().optional() }),
    hooks: {
      onStart: () => void log.push(`start:${name}`),
      onEnd: () => void log.push(`end:${name}`),
    },
    execute: async (args) => {
      log.push(`exec:${name}`);
      return { from: name, args };
    },
    ...extra,
  } as Parameters<typeof createTool>[0]);
}

const weather = tool('get_weather', 'Current weather for a city.');
const email = tool('send_email', 'Send an email message.');
const wire = tool('wire_money', 'Transfer money to a bank account.', { needsApproval: true });
const nuke = tool('delete_account', 'Delete the user account forever.', {
  execute: async () => {
    throw new ToolDeniedError({ toolName: 'delete_account', message: 'Not on your plan' });
  },
});
const clientPick = createTool({
  name: 'pick_weather_file',
  description: 'Client picks a weather file.',
  parameters: z.object({}),
});
const providerSearch = { type: 'provider' as const, id: 'openai.web_search', name: 'web_search_weather', args: {} };

/** Runs a built-in through the real tool pipeline, as an in-process agent loop would. */
async function call(
  router: ToolRouter,
  which: 'searchTools' | 'callTool',
  args: unknown,
  operationId = 'run-1',
  agentHooks?: AgentToolHooks,
): Promise<ToolPipelineOutcome> {
  const target = router[which];
  const parsed = target.parameters.parse(args);
  return runToolPipeline({
    tool: target,
    args: parsed,
    toolCallId: `${which}-call`,
    options: createToolExecuteOptions({ toolName: which, toolCallId: `${which}-call`, operationId }),
    agentHooks,
  });
}

function output<T = unknown>(outcome: ToolPipelineOutcome): T {
  if (outcome.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return outcome.output as T;
}

function errorMessage(outcome: ToolPipelineOutcome): string {
  if (outcome.kind !== 'error') throw new Error(`expected an error payload, got ${JSON.stringify(outcome)}`);
  return outcome.output.message;
}

function router(options: Partial<ToolRouterOptions> = {}): ToolRouter {
  return createToolRouter({
    tools: new ToolManager([weather, email, wire, nuke, clientPick, providerSearch]),
    ...options,
  });
}

describe('visible tools and pool', () => {
  it('shows searchTools, callTool and the exposed tools; pools every registered tool by default', () => {
    const r = router({ config: { expose: [tool('get_time', 'Current time.')] } });
    expect(r.visibleTools().map((t) => t.name)).toEqual(['searchTools', 'callTool', 'get_time']);
    expect(
      r
        .pool()
        .getAllTools()
        .map((t) => t.name),
    ).toEqual(['get_weather', 'send_email', 'wire_money', 'delete_account', 'pick_weather_file', 'web_search_weather']);
    // Client-side and provider tools are pooled but never candidates.
    expect(r.candidates().map((c) => c.name)).toEqual(['delete_account', 'get_weather', 'send_email', 'wire_money']);
  });

  it('lets registered user tools named searchTools/callTool win over the built-ins (shown directly, not pooled)', () => {
    const mine = tool('searchTools', 'My own search.');
    const r = createToolRouter({ tools: new ToolManager([mine, weather]) });
    expect(r.visibleTools()[0]).toBe(mine);
    expect(r.visibleTools()[1]).toBe(r.callTool);
    expect(
      r
        .pool()
        .getAllTools()
        .map((t) => t.name),
    ).toEqual(['get_weather']);
    expect(r.pool().getToolByName('searchTools')).toBeUndefined();
  });

  it("follows the agent's addTools/removeTools when no pool is given", async () => {
    const agent = new Agent({ name: 'a', instructions: 'x', tools: [weather], toolRouting: {} });
    const r = createToolRouter({ tools: () => agent.getToolManager(), config: agent.toolRouting || undefined });
    expect(r.candidates().map((c) => c.name)).toEqual(['get_weather']);
    agent.addTools([email]);
    expect((await r.search({ query: 'email message' })).result.tools.map((t) => t.name)).toEqual(['send_email']);
    agent.removeTools(['send_email']);
    expect((await r.search({ query: 'email message' })).result.tools).toEqual([]);
  });

  it('uses an explicit pool as given (unregistered tools included); pool: [] pools nothing', async () => {
    const unregistered = tool('book_flight', 'Book a flight.');
    const explicit = router({ config: { pool: [email, unregistered] } });
    expect(explicit.candidates().map((c) => c.name)).toEqual(['book_flight', 'send_email']);
    expect(explicit.toolByName('book_flight')).toBe(unregistered);
    expect(explicit.toolByName('get_weather')).toBeUndefined();
    const empty = router({ config: { pool: [] } });
    expect((await empty.search({ query: 'weather' })).result.tools).toEqual([]);
  });

  it('validates its config', () => {
    expect(() => router({ config: { pool: [tool('callTool', 'x')] } })).toThrow(/reserves tool names callTool/);
  });
});

describe('searchTools (in-process)', () => {
  it('returns the matching tools with their schemas and marks exactly those searched', async () => {
    const r = router();
    const result = output<ToolSearchResult>(await call(r, 'searchTools', { query: 'weather in Paris', topK: 5 }));
    expect(result.tools.map((t) => t.name)).toEqual(['get_weather']);
    expect(result.tools[0]!.parametersSchema).toMatchObject({ properties: { city: { type: 'string' } } });
    expect([...r.searchedIn('run-1')]).toEqual(['get_weather']);
  });

  it('says so when nothing matches and marks nothing searched (VoltAgent returns and marks arbitrary tools)', async () => {
    const r = router();
    const result = output<ToolSearchResult>(await call(r, 'searchTools', { query: 'bake sourdough bread' }));
    expect(result).toMatchObject({ selections: [], tools: [], message: expect.stringMatching(/^No tool matches/) });
    expect(r.searchedIn('run-1').size).toBe(0);
  });

  it('applies topK precedence: call > config > embedding config > 1', async () => {
    const embedding = { model: new CountingEmbeddingModel(), topK: 2 };
    const many = createToolRouter({
      tools: new ToolManager(['a', 'b', 'c', 'd'].map((n) => tool(`${n}_report`, `Report ${n} about sales.`))),
      config: { embedding },
    });
    expect((await many.search({ query: 'sales report' })).result.tools).toHaveLength(2);
    expect((await many.search({ query: 'sales report', topK: 3 })).result.tools).toHaveLength(3);
    const withConfig = createToolRouter({ tools: () => many.registeredTools(), config: { embedding, topK: 1 } });
    expect((await withConfig.search({ query: 'sales report' })).result.tools).toHaveLength(1);
    expect(createToolRouter({ tools: new ToolManager() }).topK()).toBe(1);
  });

  it('refuses a blank or oversized query at the search entry point too', async () => {
    const r = router();
    await expect(r.search({ query: '  ' })).rejects.toThrow(
      'A tool search needs a query of 1 to 1000 characters describing the tool wanted; got 0.',
    );
    await expect(r.search({ query: 'x'.repeat(1_001) })).rejects.toThrow(/got 1001/);
  });

  it('refuses a blank or oversized query through its schema', () => {
    const r = router();
    expect(r.searchTools.parameters.safeParse({ query: '   ' }).success).toBe(false);
    expect(r.searchTools.parameters.safeParse({ query: 'x'.repeat(1_001) }).success).toBe(false);
    expect(r.searchTools.parameters.safeParse({ query: 'ok', topK: 0 }).success).toBe(false);
  });

  it('runs a custom strategy with the candidates and the run context, dropping names it invents', async () => {
    const seen: Array<{ tools: string[]; topK: number; operationId?: string }> = [];
    const strategy: ToolSearchStrategy = {
      select: ({ tools, topK, context }) => {
        seen.push({ tools: tools.map((t) => t.name), topK, operationId: context.operationId });
        return [{ name: 'made_up' }, { name: 'send_email', score: 7, reason: 'always email' }];
      },
    };
    const r = router({ config: { strategy, topK: 2 } });
    const result = output<ToolSearchResult>(await call(r, 'searchTools', { query: 'anything' }, 'run-9'));
    expect(result.selections).toEqual([{ name: 'send_email', score: 7, reason: 'always email' }]);
    expect(seen).toEqual([
      { tools: ['delete_account', 'get_weather', 'send_email', 'wire_money'], topK: 2, operationId: 'run-9' },
    ]);
  });
});

describe('callTool (in-process)', () => {
  it('refuses a tool not searched in this run, then runs it after a search, with hooks nested', async () => {
    const r = router();
    const refused = await call(r, 'callTool', { name: 'get_weather', args: { city: 'Oslo' } });
    expect(errorMessage(refused)).toMatch(/^Tool "get_weather" must be searched via searchTools before calling/);
    expect(refused.kind === 'error' && refused.output).toMatchObject({
      reason: 'not-searched',
      requestedTool: 'get_weather',
      toolName: 'callTool',
    });

    await call(r, 'searchTools', { query: 'weather' });
    log.length = 0;
    const hooks: AgentToolHooks = {
      onToolStart: ({ tool: t }) => void log.push(`agent-start:${t.name}`),
      onToolEnd: ({ tool: t }) => void log.push(`agent-end:${t.name}`),
    };
    const ran = await call(r, 'callTool', { name: 'get_weather', args: '{"city":"Oslo"}' }, 'run-1', hooks);
    expect(output(ran)).toEqual({ from: 'get_weather', args: { city: 'Oslo' } });
    // callTool's own hooks wrap the target's; the router was given no agent hooks, so the target runs with its own.
    expect(log).toEqual([
      'agent-start:callTool',
      'start:get_weather',
      'exec:get_weather',
      'end:get_weather',
      'agent-end:callTool',
    ]);
  });

  it('keeps searched sets per operation (run)', async () => {
    const r = router();
    await call(r, 'searchTools', { query: 'weather' }, 'run-a');
    expect((await call(r, 'callTool', { name: 'get_weather' }, 'run-a')).kind).toBe('ok');
    expect(errorMessage(await call(r, 'callTool', { name: 'get_weather' }, 'run-b'))).toMatch(/must be searched/);
  });

  it('runs without a search when enforceSearchBeforeCall is false', async () => {
    const r = router({ config: { enforceSearchBeforeCall: false } });
    expect(output(await call(r, 'callTool', { name: 'send_email', args: {} }))).toEqual({
      from: 'send_email',
      args: {},
    });
  });

  it('asks for approval instead of aborting: refused without an approver, denied or run with one', async () => {
    const options = { config: { enforceSearchBeforeCall: false } };
    const none = await call(router(options), 'callTool', { name: 'wire_money' });
    expect(errorMessage(none)).toBe(
      'Tool "wire_money" needs a human approval before it runs, and no approver is available here. Tell the user ' +
        'what you wanted to do and ask them to approve it.',
    );
    const requests: string[] = [];
    const denied = await call(
      router({
        ...options,
        approve: ({ tool: t, toolCallId }) => (
          requests.push(`${t.name}:${toolCallId}`),
          { approved: false, reason: 'not today' }
        ),
      }),
      'callTool',
      { name: 'wire_money' },
    );
    expect(output(denied)).toEqual({ type: 'execution-denied', reason: 'not today' });
    expect(requests).toEqual(['wire_money:callTool-call:wire_money']);
    const approved = await call(router({ ...options, approve: () => true }), 'callTool', { name: 'wire_money' });
    expect(output(approved)).toEqual({ from: 'wire_money', args: {} });
  });

  it("ends the run with the target's ToolDeniedError, exactly as a direct call would", async () => {
    const outcome = await call(router({ config: { enforceSearchBeforeCall: false } }), 'callTool', {
      name: 'delete_account',
    });
    expect(outcome.kind).toBe('denied');
    expect(outcome.kind === 'denied' && outcome.error.message).toBe('Not on your plan');
  });

  it('refuses recursion, pool misses and client-side tools with a CallToolRefusedError payload', async () => {
    const r = router({ config: { enforceSearchBeforeCall: false } });
    expect(errorMessage(await call(r, 'callTool', { name: 'callTool' }))).toMatch(/to avoid recursion/);
    expect(errorMessage(await call(r, 'callTool', { name: 'nope' }))).toMatch(/^Tool not found in pool: nope/);
    const client = await call(r, 'callTool', { name: 'pick_weather_file' });
    expect(client.kind === 'error' && client.output).toMatchObject({
      name: 'CallToolRefusedError',
      reason: 'not-callable',
    });
    await expect(
      r.callTool.execute!({ name: 'nope' }, createToolExecuteOptions({ toolName: 'callTool', toolCallId: 'c' })),
    ).rejects.toSatisfy((e) => CallToolRefusedError.isInstance(e));
  });
});

describe('per-run routing', () => {
  const service = new ToolSearchService({ providers: new ProviderRegistry() });
  const agentTools = new ToolManager([weather, email]);
  const extraPool = tool('book_flight', 'Book a flight.');
  const exposed = tool('get_time', 'Current time.');

  it('offers the tools directly when the run turns routing off (pooled and exposed ones included)', () => {
    const run = resolveRunToolRouting({
      tools: agentTools,
      config: { pool: [extraPool], expose: [exposed] },
      override: false,
      service,
    });
    expect(run.enabled).toBe(false);
    expect(run.visible.map((t) => t.name)).toEqual(['get_weather', 'send_email', 'get_time', 'book_flight']);
    expect(run.lookup('book_flight')).toBe(extraPool);
  });

  it('routes a run of an agent without routing, pooling every registered tool', () => {
    const run = resolveRunToolRouting({ tools: agentTools, config: undefined, override: true, service });
    expect(run.enabled).toBe(true);
    expect(run.visible.map((t) => t.name)).toEqual(['searchTools', 'callTool']);
    expect(run.enabled && run.router.candidates().map((c) => c.name)).toEqual(['get_weather', 'send_email']);
    expect(resolveRunToolRouting({ tools: agentTools, config: false, service }).enabled).toBe(false);
  });

  it("pools a run's own tools (an agent's tools function evaluated per run)", async () => {
    const agent = new Agent({
      name: 'dyn',
      instructions: 'x',
      tools: (ctx) => (ctx.userId === 'vip' ? [tool('vip_lounge', 'Book the VIP lounge.')] : []),
      toolRouting: {},
    });
    agent.addTools([weather]);
    const vip = await agent.resolveRunTools({ userId: 'vip', context: new Map() });
    const run = resolveRunToolRouting({ tools: vip, config: agent.toolRouting, service });
    if (!run.enabled) throw new Error('expected routing');
    expect(run.router.candidates().map((c) => c.name)).toEqual(['get_weather', 'vip_lounge']);
    const other = await agent.resolveRunTools({ userId: 'someone', context: new Map() });
    const otherRun = resolveRunToolRouting({ tools: other, config: agent.toolRouting, service });
    expect(otherRun.enabled && otherRun.router.candidates().map((c) => c.name)).toEqual(['get_weather']);
  });

  it("applies an override's fields over the agent's, naming the run's tools", () => {
    const run = resolveRunToolRouting({
      tools: agentTools,
      config: { topK: 1, expose: [exposed] },
      override: { pool: ['send_email'], expose: ['get_weather'], topK: 3, enforceSearchBeforeCall: false },
      service,
    });
    if (!run.enabled) throw new Error('expected routing');
    expect(run.visible.map((t) => t.name)).toEqual(['searchTools', 'callTool', 'get_weather']);
    expect(run.router.candidates().map((c) => c.name)).toEqual(['send_email']);
    expect(run.lookup('get_weather')).toBe(weather);
    expect(run.lookup('searchTools')).toBe(run.router.searchTools);
    expect(run.router.topK()).toBe(3);
    expect(run.router.enforceSearchBeforeCall).toBe(false);
    expect(() =>
      resolveRunToolRouting({ tools: agentTools, config: {}, override: { pool: ['send_email', 'rm_rf'] }, service }),
    ).toThrow(
      "The run's toolRouting.pool names tools this agent does not have: rm_rf. Its tools: get_weather, send_email.",
    );
  });

  it('keeps the embedding cache across per-run routers (one worker service): a warm search embeds only the query', async () => {
    const model = new CountingEmbeddingModel();
    const config = { embedding: { model } };
    const first = resolveRunToolRouting({ tools: agentTools, config, override: { topK: 2 }, service });
    if (!first.enabled) throw new Error('expected routing');
    await first.router.search({ query: 'weather' });
    model.calls.length = 0;
    const second = resolveRunToolRouting({ tools: agentTools, config, override: { topK: 1 }, service });
    if (!second.enabled) throw new Error('expected routing');
    const { ranking } = await second.router.search({ query: 'send mail' });
    expect(ranking.stats.embeddingCalls).toBe(1);
    expect(model.calls).toEqual([['send mail']]);
  });

  it('plans embedding batches and warms them one by one', async () => {
    const model = new CountingEmbeddingModel({ maxEmbeddingsPerCall: 3 });
    const tools = new ToolManager(Array.from({ length: 7 }, (_, i) => tool(`tool_${i}`, `Does thing ${i}.`)));
    const r = createToolRouter({ tools, config: { embedding: { model } }, service: new ToolSearchService() });
    expect(await r.embeddingPlan()).toEqual({ modelKey: 'counting/hashed-bow', batchSize: 3, poolSize: 7, batches: 3 });
    const warmed = [await r.warmBatch(0, 3), await r.warmBatch(1, 3), await r.warmBatch(2, 3)];
    expect(warmed.map((w) => w.embeddedTexts)).toEqual([3, 3, 1]);
    expect(warmed.map((w) => w.calls)).toEqual([1, 1, 1]);
    expect((await r.search({ query: 'thing 4' })).ranking.stats).toMatchObject({ embeddingCalls: 1, cacheHits: 7 });
    expect(await router().embeddingPlan()).toBeUndefined();
  });

  it('describes a run as plain JSON for history: visible names, pool size, top-K, ranking, batch plan', async () => {
    const model = new CountingEmbeddingModel({ maxEmbeddingsPerCall: 1 });
    const routed = resolveRunToolRouting({ tools: agentTools, config: { embedding: { model } }, service });
    expect(await describeToolRouting(routed)).toEqual({
      enabled: true,
      visibleTools: ['searchTools', 'callTool'],
      candidates: 2,
      enforceSearchBeforeCall: true,
      topK: 1,
      ranking: 'hybrid',
      embedding: { modelKey: 'counting/hashed-bow', batchSize: 1, poolSize: 2, batches: 2 },
    });
    const cosineOnly = resolveRunToolRouting({
      tools: agentTools,
      config: { embedding: { model, lexicalWeight: 0 } },
      service,
    });
    expect(await describeToolRouting(cosineOnly)).toMatchObject({ ranking: 'embedding' });
    const direct = resolveRunToolRouting({ tools: agentTools, config: {}, override: false, service });
    expect(await describeToolRouting(direct)).toEqual({ enabled: false, visibleTools: ['get_weather', 'send_email'] });
    expect(JSON.parse(JSON.stringify(await describeToolRouting(routed)))).toEqual(await describeToolRouting(routed));
  });

  it('reports an unknown embedding provider or a missing key at the first search, with the registry message', async () => {
    const unknown = createToolRouter({ tools: agentTools, config: { embedding: 'nope/model' }, service });
    await expect(unknown.search({ query: 'weather' })).rejects.toThrow(
      /Unknown embedding model provider 'nope' in 'nope\/model'\. Known providers: .*offline.*openai/,
    );
    const noKey = createToolRouter({
      tools: agentTools,
      config: { embedding: 'openai/text-embedding-3-small' },
      service: new ToolSearchService({ providers: new ProviderRegistry({ env: {} }) }),
    });
    await expect(noKey.search({ query: 'weather' })).rejects.toThrow(/OPENAI_API_KEY/);
  });
});
