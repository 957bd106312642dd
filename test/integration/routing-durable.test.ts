// Tool routing in durable runs on a real dev server: searchTools and callTool through the workflow (rankTools and
// executeTool activities), callTool's checks, approvals through callTool, the per-run override both ways, user tools
// named like the built-ins, client-side tools, a worker restart between search and call, and continue-as-new.
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Context } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import type { RunEvent, ToolSearchResult } from '../../src/protocol/index.js';
import { ToolRouter } from '../../src/routing/tool-router.js';
import type { ToolRoutingConfig, ToolSearchStrategy } from '../../src/routing/types.js';
import { createTool, type AnyTool } from '../../src/tool/tool.js';
import { historyJson, localActivityResults, recordedActivities } from '../support/activity-history.js';
import { activityCounts, recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';
import { CountingEmbeddingModel } from '../fixtures/routing/counting-embedding-model.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** The tools of these tests; `executed` records every execution. */
function opsTools(executed: string[]) {
  const getWeather = createTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: z.object({ city: z.string() }),
    activity: { startToCloseTimeout: '45s', retry: { maximumAttempts: 3 } },
    execute: async ({ city }) => {
      executed.push(`weather ${city}`);
      return { city, tempC: 21 };
    },
  });
  const sendEmail = createTool({
    name: 'send_email',
    description: 'Send an email message to a recipient.',
    parameters: z.object({ to: z.string(), body: z.string() }),
    needsApproval: true,
    activity: { startToCloseTimeout: '20s', retry: { maximumAttempts: 2 } },
    execute: async ({ to }) => {
      executed.push(`email ${to}`);
      return `sent to ${to}`;
    },
  });
  const writeFile = createTool({
    name: 'write_file',
    description: 'Write text to a file on disk.',
    parameters: z.object({ path: z.string(), text: z.string() }),
    needsApproval: async ({ path }) => !path.startsWith('/tmp/'),
    execute: async ({ path }) => {
      executed.push(`write ${path}`);
      return 'written';
    },
  });
  const tagItems = createTool({
    name: 'tag_items',
    description: 'Tag inventory items with labels.',
    parameters: z.object({ ids: z.array(z.string()), count: z.number().default(1) }),
    execute: async ({ ids, count }) => {
      executed.push(`tag ${ids.join(',')} x${count}`);
      return { tagged: ids };
    },
  });
  const convertCurrency = createTool({
    name: 'convert_currency',
    description: 'Convert an amount of money between currencies.',
    parameters: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
    execute: async ({ amount }) => {
      executed.push(`convert ${amount}`);
      return { amount: amount * 2 };
    },
  });
  // Client-side: no execute (the caller would submit its result). Never a search result, never callable.
  const pickFile = createTool({
    name: 'pick_file',
    description: 'Let the user pick a file from their computer.',
    parameters: z.object({}),
  });
  const getTime = createTool({
    name: 'get_time',
    description: 'The current time.',
    parameters: z.object({}),
    execute: async () => {
      executed.push('time');
      return '12:00';
    },
  });
  return { getWeather, sendEmail, writeFile, tagItems, convertCurrency, pickFile, getTime };
}

function opsAgent(
  model: ScriptedLanguageModel,
  executed: string[],
  toolRouting: ToolRoutingConfig | false | 'none' = {},
  extra: AnyTool[] = [],
): Agent {
  const t = opsTools(executed);
  return new Agent({
    name: 'ops',
    instructions: 'You run operations.',
    model,
    tools: [t.getWeather, t.sendEmail, t.writeFile, t.tagItems, t.convertCurrency, t.pickFile, ...extra],
    ...(toolRouting === 'none'
      ? {}
      : { toolRouting: toolRouting === false ? false : { expose: [t.getTime], ...toolRouting } }),
  });
}

const search = (query: string, toolCallId: string, topK?: number) => ({
  toolName: 'searchTools',
  input: topK === undefined ? { query } : { query, topK },
  toolCallId,
});
const callTool = (name: string, args: unknown, toolCallId: string) => ({
  toolName: 'callTool',
  input: { name, args },
  toolCallId,
});

/** What the model read for a tool call (the `output` of its tool-result part). */
function seen(
  request: ScriptedRequest | undefined,
  toolCallId: string,
): { type: string; value?: unknown; reason?: string } {
  return toolResultsSeen(request).get(toolCallId) as { type: string; value?: unknown; reason?: string };
}

function searchResult(request: ScriptedRequest | undefined, toolCallId: string): ToolSearchResult {
  const output = seen(request, toolCallId);
  expect(output.type).toBe('json');
  return output.value as ToolSearchResult;
}

function errorText(request: ScriptedRequest | undefined, toolCallId: string): string {
  const output = seen(request, toolCallId);
  expect(output.type).toBe('error-text');
  return output.value as string;
}

async function pendingApproval(run: AgentRun) {
  await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
  return (await run.state()).pendingApprovals[0]!;
}

describe('tool routing in a durable run', () => {
  it('searches, then calls the target in its own executeTool activity with its own options', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [search('weather forecast for a city', 's1'), search('xyzzy plugh', 's0')] },
      { toolCalls: [callTool('get_weather', { city: 'Oslo' }, 'c1')] },
      { text: 'It is 21 degrees in Oslo.' },
    ]);
    await withAgentWorker(env, [opsAgent(model, executed)], async ({ start }) => {
      const run = await start('ops', 'What is the weather in Oslo?');
      const result = await run.result();
      expect(result.text).toBe('It is 21 degrees in Oslo.');

      // The model sees only the built-ins and the exposed tool, on every step.
      expect(model.requests.map((r) => r.toolNames)).toEqual([
        ['searchTools', 'callTool', 'get_time'],
        ['searchTools', 'callTool', 'get_time'],
        ['searchTools', 'callTool', 'get_time'],
      ]);
      const found = searchResult(model.requests[1], 's1');
      expect(found.query).toBe('weather forecast for a city');
      expect(found.tools.map((t) => t.name)).toEqual(['get_weather']);
      expect(found.tools[0]).toMatchObject({
        description: 'Current weather for a city.',
        parametersSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      });
      const none = searchResult(model.requests[1], 's0');
      expect(none.tools).toEqual([]);
      expect(none.message).toMatch(/^No tool matches "xyzzy plugh"\. Search again with different words/);
      // The target's result is callTool's, paired with the model's callTool call.
      expect(seen(model.requests[2], 'c1')).toEqual({ type: 'json', value: { city: 'Oslo', tempC: 21 } });
      const toolMessage = model.requests[2]!.prompt.findLast((m) => m.role === 'tool');
      expect(toolMessage?.content).toMatchObject([{ type: 'tool-result', toolCallId: 'c1', toolName: 'callTool' }]);
      expect(executed).toEqual(['weather Oslo']);
      expect(result.steps[1]!.toolCalls).toEqual([{ toolCallId: 'c1', toolName: 'callTool', outcome: 'ok' }]);
      // Events name what ran: the searches, then the target (the model's call was callTool).
      const events: RunEvent[] = [];
      for await (const event of run.events()) events.push(event);
      const named = (type: string) =>
        events
          .filter((e) => e.type === type)
          .map((e) => `${(e as { toolCallId?: string }).toolCallId}:${(e as { toolName?: string }).toolName}`)
          .sort();
      expect(named('tool-call')).toEqual(['c1:callTool', 's0:searchTools', 's1:searchTools']);
      expect(named('tool-started')).toEqual(['c1:get_weather', 's0:searchTools', 's1:searchTools']);
      expect(named('tool-result')).toEqual(['c1:get_weather', 's0:searchTools', 's1:searchTools']);

      const history = await run.handle.fetchHistory();
      expect(activityCounts(history)).toEqual({ describeAgent: 1, generate: 3, rankTools: 2, executeTool: 1 });
      const activities = recordedActivities(history);
      const ranked = activities.filter((a) => a.type === 'rankTools');
      expect(ranked.map((a) => a.input)).toMatchObject([
        { toolCallId: 's1', query: 'weather forecast for a city', topK: 1 },
        { toolCallId: 's0', query: 'xyzzy plugh', topK: 1 },
      ]);
      expect(ranked[0]!.result).toMatchObject({ version: 1, stats: { candidates: 5, embeddingCalls: 0 } });
      const execution = activities.find((a) => a.type === 'executeTool')!;
      expect(execution.input).toMatchObject({
        toolName: 'get_weather',
        toolCallId: 'c1',
        args: { city: 'Oslo' },
        via: 'callTool',
      });
      expect(execution).toMatchObject({ startToCloseTimeout: '45s', maximumAttempts: 3 });
      // The run's routing, recorded once by describeAgent.
      expect(localActivityResults(history, 'describeAgent')[0]).toMatchObject({
        version: 2,
        routing: {
          enabled: true,
          visibleTools: ['searchTools', 'callTool', 'get_time'],
          candidates: 5,
          enforceSearchBeforeCall: true,
          topK: 1,
          ranking: 'lexical',
        },
      });
      await recordHistory('routing-search-call', env, run.id);
    });
  });

  it("runs callTool's checked target from the run's pool without resolving the run's routing again", async () => {
    // Where the routing is resolved: each resolution builds a router and asks it for the visible tools.
    const resolvedIn: string[] = [];
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on its router (`.call(this)`) below
    const visibleTools = ToolRouter.prototype.visibleTools;
    const spy = vi.spyOn(ToolRouter.prototype, 'visibleTools').mockImplementation(function (this: ToolRouter) {
      resolvedIn.push(Context.current().info.activityType);
      return visibleTools.call(this);
    });
    try {
      const executed: string[] = [];
      // Pooled only: the agent does not register it, so only the run's pool holds it.
      const lookupOrder = createTool({
        name: 'lookup_order',
        description: 'Look an order up by its number.',
        parameters: z.object({ order: z.string() }),
        execute: async ({ order }) => {
          executed.push(`order ${order}`);
          return { order, status: 'shipped' };
        },
      });
      const model = new ScriptedLanguageModel([
        { toolCalls: [search('order status', 's1')] },
        { toolCalls: [callTool('lookup_order', { order: 'A-1' }, 'c1')] },
        { text: 'Shipped.' },
      ]);
      const agent = opsAgent(model, executed, { pool: [lookupOrder] });
      await withAgentWorker(env, [agent], async ({ start }) => {
        const run = await start('ops', 'Where is order A-1?');
        expect((await run.result()).text).toBe('Shipped.');
        expect(executed).toEqual(['order A-1']);
        const execution = recordedActivities(await run.handle.fetchHistory()).find((a) => a.type === 'executeTool');
        expect(execution?.input).toMatchObject({ toolName: 'lookup_order', args: { order: 'A-1' }, via: 'callTool' });
      });
      expect(resolvedIn).toContain('generate');
      expect(resolvedIn).not.toContain('executeTool');
    } finally {
      spy.mockRestore();
    }
  });

  it("counts a callTool target's large argument once: a 0.9 MB argument runs, recorded once in the response", async () => {
    const executed: string[] = [];
    const text = 'x'.repeat(900_000);
    const model = new ScriptedLanguageModel([
      { toolCalls: [callTool('write_file', { path: '/tmp/big.txt', text }, 'w1')] },
      { text: 'Written.' },
    ]);
    const agent = opsAgent(model, executed, { enforceSearchBeforeCall: false });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('ops', 'Write the big file.');
      expect((await run.result()).text).toBe('Written.');
      expect(executed).toEqual(['write /tmp/big.txt']);
      const activities = recordedActivities(await run.handle.fetchHistory());
      const generated = activities.find((a) => a.type === 'generate')!;
      // The model's response holds the argument; the call's route names the target without a copy of it.
      const bytes = Buffer.byteLength(JSON.stringify(generated.result), 'utf8');
      expect(bytes).toBeGreaterThan(900_000);
      expect(bytes).toBeLessThan(1_000_000);
      const execution = activities.find((a) => a.type === 'executeTool')!;
      expect(execution.input).toMatchObject({ toolName: 'write_file', args: { path: '/tmp/big.txt', text } });
    });
  });

  // The default limit is 1.5 MB; the response around an argument of `size` bytes adds well under 2,000.
  const LIMIT = 1_500_000;
  const argForms = {
    'an object': (text: string) => ({ path: '/tmp/big.txt', text }),
    'a JSON string': (text: string) => JSON.stringify({ path: '/tmp/big.txt', text }),
  };
  it.each(Object.keys(argForms) as Array<keyof typeof argForms>)(
    "counts a callTool target's argument written as %s once against the response limit: just under runs, just over fails",
    async (form) => {
      const under = 'x'.repeat(LIMIT - 2_000);
      const over = 'x'.repeat(LIMIT);
      const executed: string[] = [];
      const model = new ScriptedLanguageModel([
        { toolCalls: [callTool('write_file', argForms[form](under), 'w1')] },
        { text: 'Written.' },
        { toolCalls: [callTool('write_file', argForms[form](over), 'w2')] },
      ]);
      const agent = opsAgent(model, executed, { enforceSearchBeforeCall: false });
      await withAgentWorker(env, [agent], async ({ start }) => {
        const run = await start('ops', 'Write the big file.');
        expect((await run.result()).text).toBe('Written.');
        expect(executed).toEqual(['write /tmp/big.txt']);
        const activities = recordedActivities(await run.handle.fetchHistory());
        const bytes = Buffer.byteLength(JSON.stringify(activities.find((a) => a.type === 'generate')!.result), 'utf8');
        expect(bytes).toBeGreaterThan(LIMIT - 2_000);
        expect(bytes).toBeLessThanOrEqual(LIMIT);
        const execution = activities.find((a) => a.type === 'executeTool')!;
        expect(execution.input).toMatchObject({ toolName: 'write_file', args: { path: '/tmp/big.txt', text: under } });

        const failed = await start('ops', 'Write a bigger one.');
        const error = await failed.result().catch((err: unknown) => err);
        expect((error as Error).message).toMatch(/response is 150\d{4} bytes, over the 1500000-byte limit/);
        expect(executed).toEqual(['write /tmp/big.txt']);
      });
    },
    60_000,
  );

  it("refuses recursion, pool misses and unsearched tools (before the target's args), and coerces JSON strings", async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          callTool('get_weather', { city: 'Oslo' }, 'c0'),
          callTool('callTool', {}, 'c1'),
          callTool('launch_rocket', {}, 'c2'),
          callTool('get_time', {}, 'c3'),
          callTool('send_email', { to: 5 }, 'c4'),
        ],
      },
      { toolCalls: [search('tag inventory items', 's1')] },
      {
        toolCalls: [
          callTool('tag_items', { ids: '["a","b"]' }, 'c5'),
          callTool('tag_items', '{"ids":["c"],"count":2}', 'c6'),
          callTool('tag_items', { ids: 5 }, 'c7'),
        ],
      },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [opsAgent(model, executed)], async ({ start }) => {
      const run = await start('ops', 'Tag items a and b.');
      await run.result();
      const first = model.requests[1];
      expect(errorText(first, 'c0')).toBe(
        'Tool "get_weather" must be searched via searchTools before calling. Call searchTools with a description of ' +
          'what you need, then call one of the tools it returns with the schema it shows.',
      );
      expect(errorText(first, 'c1')).toBe(
        'Tool "callTool" cannot be called via callTool to avoid recursion. Use it directly instead.',
      );
      expect(errorText(first, 'c2')).toBe(
        'Tool not found in pool: launch_rocket. Call searchTools with a description of what you need and use a name ' +
          'it returns.',
      );
      expect(errorText(first, 'c3')).toMatch(/^Tool not found in pool: get_time\. It is available directly/);
      // Its arguments are wrong too, but "search first" is what the model must hear first.
      expect(errorText(first, 'c4')).toMatch(/^Tool "send_email" must be searched via searchTools/);

      const third = model.requests[3];
      expect(seen(third, 'c5')).toEqual({ type: 'json', value: { tagged: ['a', 'b'] } });
      expect(seen(third, 'c6')).toEqual({ type: 'json', value: { tagged: ['c'] } });
      expect(errorText(third, 'c7')).toMatch(/^Invalid arguments for tool "tag_items": .*expected array/s);
      expect(executed).toEqual(['tag a,b x1', 'tag c x2']);

      const history = await run.handle.fetchHistory();
      expect(activityCounts(history)).toMatchObject({ generate: 4, rankTools: 1, executeTool: 2 });
      const executions = recordedActivities(history).filter((a) => a.type === 'executeTool');
      // The target's activity validates the arguments as the generate activity did: JSON strings already parsed.
      expect(executions.map((a) => a.input)).toMatchObject([
        { toolName: 'tag_items', toolCallId: 'c5', args: { ids: ['a', 'b'] } },
        { toolName: 'tag_items', toolCallId: 'c6', args: { ids: ['c'], count: 2 } },
      ]);
      await recordHistory('routing-refusals-and-coercion', env, run.id);
    });
  });
});

describe('a custom search strategy in a durable run', () => {
  it('runs inside rankTools with the run context; retried when it throws, an error result when it gives up', async () => {
    const calls: Array<Record<string, unknown>> = [];
    let flaky = 0;
    const strategy: ToolSearchStrategy = {
      select: async ({ query, tools, topK, context }) => {
        calls.push({
          query,
          topK,
          candidates: tools.map((t) => t.name),
          operationId: context.operationId,
          userId: context.userId,
          plan: context.context.get('plan'),
        });
        if (query === 'flaky' && ++flaky === 1) throw new Error('index warming up');
        if (query === 'broken') throw ApplicationFailure.nonRetryable('search index offline');
        return [
          { name: 'invented_tool', score: 1 },
          { name: 'send_email', score: 0.9, reason: 'always email' },
        ];
      },
    };
    const model = new ScriptedLanguageModel([
      { toolCalls: [search('anything', 's1', 2)] },
      { toolCalls: [search('flaky', 's2')] },
      { toolCalls: [search('broken', 's3')] },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [opsAgent(model, [], { strategy })], async ({ start }) => {
      const run = await start('ops', 'Find tools.', { userId: 'u1', context: { plan: 'pro' } });
      const result = await run.result();
      expect(calls[0]).toEqual({
        query: 'anything',
        topK: 2,
        candidates: ['convert_currency', 'get_weather', 'send_email', 'tag_items', 'write_file'],
        operationId: run.id,
        userId: 'u1',
        plan: 'pro',
      });
      // Names the strategy invents are dropped.
      expect(searchResult(model.requests[1], 's1').selections).toEqual([
        { name: 'send_email', score: 0.9, reason: 'always email' },
      ]);
      expect(searchResult(model.requests[2], 's2').tools.map((t) => t.name)).toEqual(['send_email']);
      expect(errorText(model.requests[3], 's3')).toBe(
        'Tool search failed: search index offline. Search again in a moment, or answer without a tool.',
      );
      expect(result.steps[2]!.toolCalls).toEqual([{ toolCallId: 's3', toolName: 'searchTools', outcome: 'error' }]);
      expect(calls.map((c) => c.query)).toEqual(['anything', 'flaky', 'flaky', 'broken']);

      // The flaky attempt failed as Routing.StrategyFailed and was retried by Temporal.
      const history = await run.handle.fetchHistory();
      const retried = historyJson(history).events.flatMap((e) => {
        const started = (e as { activityTaskStartedEventAttributes?: { attempt?: number; lastFailure?: unknown } })
          .activityTaskStartedEventAttributes;
        return started && (started.attempt ?? 1) > 1 ? [started.lastFailure] : [];
      });
      expect(retried).toMatchObject([
        {
          message: "The agent's tool search strategy failed: index warming up",
          applicationFailureInfo: { type: 'Routing.StrategyFailed' },
        },
      ]);
      await recordHistory('routing-custom-strategy', env, run.id);
    });
  });
});

describe('approval through callTool', () => {
  const script = (to: string) =>
    new ScriptedLanguageModel([
      { toolCalls: [search('send an email message', 's1')] },
      { toolCalls: [callTool('send_email', { to, body: 'hello' }, 'c1')] },
      (request) => ({ text: JSON.stringify(seen(request, 'c1')) }),
    ]);

  it('waits for a person showing the target; approved, the target runs in its own activity', async () => {
    const executed: string[] = [];
    const model = script('ann@example.com');
    await withAgentWorker(env, [opsAgent(model, executed)], async ({ start }) => {
      const run = await start('ops', 'Email Ann.');
      const pending = await pendingApproval(run);
      expect(pending).toMatchObject({
        toolCallId: 'c1',
        toolName: 'send_email',
        args: { to: 'ann@example.com', body: 'hello' },
      });
      expect(executed).toEqual([]);
      await run.approve(pending.toolCallId, { approver: 'lead' });
      const result = await run.result();
      expect(JSON.parse(result.text)).toEqual({ type: 'text', value: 'sent to ann@example.com' });
      expect(executed).toEqual(['email ann@example.com']);
      expect(result.approvals).toMatchObject([{ toolCallId: 'c1', toolName: 'send_email', approved: true }]);

      const history = await run.handle.fetchHistory();
      const execution = recordedActivities(history).find((a) => a.type === 'executeTool')!;
      expect(execution).toMatchObject({
        input: { toolName: 'send_email', toolCallId: 'c1', args: { to: 'ann@example.com', body: 'hello' } },
        startToCloseTimeout: '20s',
        maximumAttempts: 2,
      });
      await recordHistory('routing-approval-approved', env, run.id);
    });
  });

  it('denied, the target never runs and the model reads execution-denied', async () => {
    const executed: string[] = [];
    const model = script('bob@example.com');
    await withAgentWorker(env, [opsAgent(model, executed)], async ({ start }) => {
      const run = await start('ops', 'Email Bob.');
      const pending = await pendingApproval(run);
      await run.deny(pending.toolCallId, { reason: 'not Bob' });
      const result = await run.result();
      expect(JSON.parse(result.text)).toEqual({ type: 'execution-denied', reason: 'not Bob' });
      expect(executed).toEqual([]);
      const history = await run.handle.fetchHistory();
      expect(activityCounts(history).executeTool).toBeUndefined();
      await recordHistory('routing-approval-denied', env, run.id);
    });
  });

  it("evaluates a dynamic needsApproval on the target's arguments", async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [search('write text to a file', 's1')] },
      { toolCalls: [callTool('write_file', { path: '/tmp/a', text: 'x' }, 'c1')] },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [opsAgent(model, executed)], async ({ start }) => {
      const run = await start('ops', 'Write a temp file.');
      const result = await run.result();
      expect(result.approvals).toEqual([]);
      expect(executed).toEqual(['write /tmp/a']);
    });
  });
});

describe('per-run routing and tool names', () => {
  it('offers a routed agent its tools directly when the run turns routing off', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'get_weather', input: { city: 'Rome' }, toolCallId: 'w1' }] },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [opsAgent(model, executed)], async ({ start }) => {
      const run = await start('ops', 'Weather in Rome?', { toolRouting: false });
      await run.result();
      expect(model.requests[0]!.toolNames).toEqual([
        'get_weather',
        'send_email',
        'write_file',
        'tag_items',
        'convert_currency',
        'pick_file',
        'get_time',
      ]);
      expect(executed).toEqual(['weather Rome']);
      const history = await run.handle.fetchHistory();
      expect(localActivityResults(history, 'describeAgent')[0]).toMatchObject({ routing: { enabled: false } });
    });
  });

  it('routes one run of an agent without routing, with the run’s settings', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [search('money', 's1'), callTool('get_weather', { city: 'Oslo' }, 'c1')] },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [opsAgent(model, executed, 'none')], async ({ start }) => {
      const run = await start('ops', 'Hi', {
        toolRouting: { topK: 2, enforceSearchBeforeCall: false, pool: ['get_weather', 'convert_currency'] },
      });
      await run.result();
      expect(model.requests[0]!.toolNames).toEqual(['searchTools', 'callTool']);
      expect(searchResult(model.requests[1], 's1').tools.map((t) => t.name)).toEqual(['convert_currency']);
      // Not enforced for this run: callable without a search.
      expect(seen(model.requests[1], 'c1')).toEqual({ type: 'json', value: { city: 'Oslo', tempC: 21 } });
      const history = await run.handle.fetchHistory();
      expect(localActivityResults(history, 'describeAgent')[0]).toMatchObject({
        routing: { enabled: true, candidates: 2, topK: 2, enforceSearchBeforeCall: false },
      });
    });

    const plain = new ScriptedLanguageModel([{ text: 'hi' }]);
    await withAgentWorker(env, [opsAgent(plain, executed, 'none')], async ({ start }) => {
      const run = await start('ops', 'Hi', { toolRouting: true });
      await run.result();
      expect(plain.requests[0]!.toolNames).toEqual(['searchTools', 'callTool']);
    });
  });

  it('fails a run once, saying why, when its override names tools the agent does not have', async () => {
    const model = new ScriptedLanguageModel([]);
    await withAgentWorker(env, [opsAgent(model, [])], async ({ start }) => {
      const run = await start('ops', 'Hi', { toolRouting: { pool: ['get_weather', 'launch_rocket'] } });
      const error = await run.result().catch((err: unknown) => err);
      expect((error as Error).message).toMatch(
        /The run's toolRouting\.pool names tools this agent does not have: launch_rocket\. Its tools: get_weather/,
      );
      expect(model.requests).toEqual([]);
      const history = await run.handle.fetchHistory();
      expect(historyJson(history).events.at(-1)).toMatchObject({
        workflowExecutionFailedEventAttributes: {
          failure: { applicationFailureInfo: { type: 'Routing.InvalidConfig' } },
        },
      });
      // A malformed override (client input) is refused the same way, naming the mistake.
      const typo = await start('ops', 'Hi', { toolRouting: { topk: 3 } as never });
      const typoError = await typo.result().catch((err: unknown) => err);
      expect((typoError as Error).message).toMatch(/Unknown toolRouting option 'topk'/);
    });
  });

  it('lets a user tool named searchTools win (run directly), and never offers client-side tools', async () => {
    const executed: string[] = [];
    const ownSearch = createTool({
      name: 'searchTools',
      description: 'Search the company wiki.',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        executed.push(`wiki ${text}`);
        return ['page 1'];
      },
    });
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'searchTools', input: { text: 'holidays' }, toolCallId: 'u1' },
          callTool('pick_file', {}, 'c1'),
        ],
      },
      { text: 'done' },
    ]);
    await withAgentWorker(
      env,
      [opsAgent(model, executed, { enforceSearchBeforeCall: false }, [ownSearch])],
      async ({ start }) => {
        const run = await start('ops', 'Holidays?');
        await run.result();
        const offered = model.requests[0]!.tools.find((t) => t.name === 'searchTools');
        expect(offered).toMatchObject({ description: 'Search the company wiki.' });
        expect(seen(model.requests[1], 'u1')).toEqual({ type: 'json', value: ['page 1'] });
        expect(errorText(model.requests[1], 'c1')).toBe(
          'Tool "pick_file" runs on the client and cannot be executed through callTool. Use another tool, or answer ' +
            'without it.',
        );
        expect(executed).toEqual(['wiki holidays']);
        const history = await run.handle.fetchHistory();
        expect(activityCounts(history).rankTools).toBeUndefined();
        expect(recordedActivities(history).find((a) => a.type === 'executeTool')!.input).toMatchObject({
          toolName: 'searchTools',
        });
      },
    );
  });

  it('never returns a client-side tool from a search', async () => {
    const model = new ScriptedLanguageModel([
      { toolCalls: [search('pick a file from the computer', 's1', 5)] },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [opsAgent(model, [])], async ({ start }) => {
      const run = await start('ops', 'Pick a file');
      await run.result();
      const names = searchResult(model.requests[1], 's1').tools.map((t) => t.name);
      expect(names).toContain('write_file');
      expect(names).not.toContain('pick_file');
    });
  });
});

describe('searched set across worker restarts and continue-as-new', () => {
  it('keeps what a run searched when another worker with a cold cache continues it', async () => {
    const executed: string[] = [];
    const t = opsTools(executed);
    const confirm = createTool({
      name: 'confirm_plan',
      description: 'Ask a person to confirm the plan.',
      parameters: z.object({}),
      needsApproval: true,
      execute: async () => 'confirmed',
    });
    const steps = [
      {
        toolCalls: [
          search('weather forecast for a city', 's1'),
          { toolName: 'confirm_plan', input: {}, toolCallId: 'p1' },
        ],
      },
      {
        toolCalls: [
          callTool('get_weather', { city: 'Lima' }, 'c1'),
          callTool('convert_currency', { amount: 1, from: 'EUR', to: 'USD' }, 'c2'),
          search('convert money between currencies', 's2'),
        ],
      },
      { text: 'done' },
    ];
    // Two deployments of the same agent: each worker has its own model, embedding model and caches. Steps are
    // picked by the transcript, so each worker can only answer the steps it is asked for.
    const deployment = () => {
      const model = new ScriptedLanguageModel({ steps, stepSelection: 'assistant-turns' });
      const embedding = new CountingEmbeddingModel();
      const agent = new Agent({
        name: 'ops',
        instructions: '',
        model,
        tools: [t.getWeather, t.convertCurrency, t.tagItems],
        toolRouting: { expose: [confirm], embedding: { model: embedding, maxBatchSize: 2 } },
      });
      return { model, embedding, agent };
    };
    const first = deployment();
    const second = deployment();
    const taskQueue = uniqueTaskQueue();
    const run = await withAgentWorker(
      env,
      [first.agent],
      async ({ start }) => {
        const started = await start('ops', 'Weather in Lima, then convert 1 EUR.');
        await pendingApproval(started);
        return started;
      },
      { taskQueue },
    );
    // Worker 1 warmed its cache (two batches of two tools, then the query) and is gone.
    expect(first.embedding.calls.map((values) => values.length)).toEqual([2, 1, 1]);
    // Worker 2 rebuilds the run by replaying its history, and answers the approval and the next steps.
    await withAgentWorker(
      env,
      [second.agent],
      async () => {
        const pending = await pendingApproval(run);
        await run.approve(pending.toolCallId);
        await run.result();
      },
      { taskQueue },
    );
    expect(first.model.requests.map((r) => r.stepIndex)).toEqual([0]);
    expect(second.model.requests.map((r) => r.stepIndex)).toEqual([1, 2]);
    const after = second.model.requests[1];
    expect(seen(after, 'c1')).toEqual({ type: 'json', value: { city: 'Lima', tempC: 21 } });
    expect(errorText(after, 'c2')).toMatch(/^Tool "convert_currency" must be searched via searchTools/);
    expect(searchResult(after, 's2').tools.map((tool) => tool.name)).toEqual(['convert_currency']);
    expect(executed).toEqual(['weather Lima']);

    // The run warmed once (on worker 1); worker 2's cold cache made its search embed the pool itself.
    const history = await run.handle.fetchHistory();
    expect(activityCounts(history)).toMatchObject({ embedBatch: 2, rankTools: 2, executeTool: 2 });
    const ranked = recordedActivities(history).filter((a) => a.type === 'rankTools');
    expect(ranked.map((a) => (a.result as { stats: unknown }).stats)).toEqual([
      { candidates: 3, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 3 },
      { candidates: 3, embeddingCalls: 3, embeddedTexts: 3, cacheHits: 0 },
    ]);
    expect(second.embedding.texts).toBe(4);
    await recordHistory('routing-worker-restart', env, run.id);
  });

  it('carries the searched set over continue-as-new', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [search('weather forecast for a city', 's1')] },
      {
        toolCalls: [
          callTool('get_weather', { city: 'Quito' }, 'c1'),
          callTool('convert_currency', { amount: 1, from: 'EUR', to: 'USD' }, 'c2'),
        ],
      },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [opsAgent(model, executed)], async ({ start }) => {
      // A budget of one event: the run continues as new after every step.
      const run = await start('ops', 'Weather in Quito?', { historyEventBudget: 1 });
      const result = await run.result();
      expect(result.text).toBe('done');
      expect(seen(model.requests[2], 'c1')).toEqual({ type: 'json', value: { city: 'Quito', tempC: 21 } });
      expect(errorText(model.requests[2], 'c2')).toMatch(/^Tool "convert_currency" must be searched/);
      expect(executed).toEqual(['weather Quito']);
      const events = [];
      for await (const event of run.events()) events.push(event.type);
      expect(events.filter((type) => type === 'continued-as-new').length).toBe(2);
      await recordHistory('routing-continue-as-new', env, run.id);
    });
  });
});
