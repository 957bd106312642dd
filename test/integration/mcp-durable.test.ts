// MCP in durable runs against a real Temporal server and real MCP servers: listings recorded once per run (an
// activity per server), MCP tool calls as their own executeTool activities, isError and failing servers as results
// and events the model and people can read, and elicitations answered by people through the run.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ScriptedLanguageModel, type ScriptedStep } from '../../src/models/scripted-model.js';
import type { RunEvent } from '../../src/protocol/index.js';
import {
  startEverythingHttp,
  startHttpFixture,
  stdioEverything,
  stdioFixture,
  stopAll,
  type HttpServerProcess,
} from '../fixtures/mcp/servers.js';
import { scanRunForSecrets } from '../support/secret-scan.js';
import { createTestEnv } from '../support/temporal.js';
import { recordHistory } from '../support/agent-harness.js';
import { activityCounts, toolResultsSeen, withAgentWorker, type HarnessOptions } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
let http: HttpServerProcess;
beforeAll(async () => {
  env = await createTestEnv();
  http = await startHttpFixture('streamable-http');
});
afterAll(async () => {
  await stopAll();
  await env?.teardown();
});

async function eventsOf(run: { events: () => AsyncGenerator<RunEvent> }): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

function mcpAgent(name: string, steps: ScriptedStep[] | ScriptedLanguageModel, mcp: MCPConfiguration, extra = {}) {
  const model = Array.isArray(steps) ? new ScriptedLanguageModel({ stepSelection: 'assistant-turns', steps }) : steps;
  return { model, agent: new Agent({ name, instructions: 'Use the tools.', model, mcp, ...extra }) };
}

describe('MCP in durable runs', () => {
  it('lists each server once per run, runs MCP tools as activities, and reports isError and dead servers', async () => {
    const mcp = new MCPConfiguration({
      listBudget: '2m',
      servers: {
        local: stdioFixture(),
        remote: { type: 'streamable-http', url: `${http.origin}/mcp` },
        gone: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp', timeout: 2_000 },
      },
    });
    const { model, agent } = mcpAgent(
      'mcp-basic',
      [
        {
          toolCalls: [
            { toolName: 'local_echo', input: { text: 'hi' }, toolCallId: 'e' },
            { toolName: 'remote_add', input: { a: 2, b: 3 }, toolCallId: 'a' },
            { toolName: 'local_is-error', input: {}, toolCallId: 'x' },
          ],
        },
        { toolCalls: [{ toolName: 'remote_echo', input: { text: 'again' }, toolCallId: 'e2' }] },
        { text: 'done' },
      ],
      mcp,
    );
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('mcp-basic', 'go');
      const result = await run.result();
      expect(result.text).toBe('done');
      const seen = toolResultsSeen(model.requests[1]);
      expect(JSON.stringify(seen.get('e'))).toContain('hi');
      expect(JSON.stringify(seen.get('a'))).toContain('5');
      expect(seen.get('x')).toMatchObject({
        type: 'json',
        value: { error: true, name: 'McpToolError', serverName: 'local' },
      });
      expect(model.requests[0]!.toolNames).toEqual(expect.arrayContaining(['local_echo', 'remote_add']));
      expect(model.requests[0]!.toolNames.some((n) => n.startsWith('gone_'))).toBe(false);
      const counts = activityCounts(await run.handle.fetchHistory());
      expect(counts.mcpListTools).toBe(3);
      expect(counts.executeTool).toBe(4);
      const events = await eventsOf(run);
      expect(
        events
          .filter((e) => e.type === 'mcp-tools-listed')
          .map((e) => (e as { server: string }).server)
          .sort(),
      ).toEqual(['local', 'remote']);
      expect(events.find((e) => e.type === 'mcp-server-failed')).toMatchObject({ server: 'gone' });
    });
    await mcp.disconnect();
  });

  it('puts an elicitation to the run: answered in time, the same call continues', async () => {
    const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
    const { agent } = mcpAgent(
      'mcp-ask',
      [
        { toolCalls: [{ toolName: 'local_elicit', input: {}, toolCallId: 'q' }] },
        (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('q')) }),
      ],
      mcp,
    );
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('mcp-ask', 'go');
      await expect.poll(async () => (await run.state()).pendingElicitations.length, { timeout: 20_000 }).toBe(1);
      const [pending] = (await run.state()).pendingElicitations;
      expect(pending).toMatchObject({
        toolCallId: 'q',
        toolName: 'local_elicit',
        serverName: 'local',
        message: 'Who are you?',
      });
      await expect(run.respondToElicitation(pending!.id, { action: 'accept', content: { age: 5 } })).rejects.toThrow(
        /field 'name' is required/,
      );
      await run.respondToElicitation(
        pending!.id,
        { action: 'accept', content: { name: 'Ada', age: 36 } },
        { responder: 'ada' },
      );
      const result = await run.result();
      expect(result.text).toContain('Ada');
      expect(result.text).toContain('accept');
      const counts = activityCounts(await run.handle.fetchHistory());
      expect(counts.executeTool).toBe(1);
    });
    await mcp.disconnect();
  });

  it('lets the run wait when nobody answers while the call is held, then re-issues the call with the answer', async () => {
    const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
    const { agent } = mcpAgent(
      'mcp-later',
      [
        { toolCalls: [{ toolName: 'local_elicit', input: {}, toolCallId: 'q' }] },
        (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('q')) }),
      ],
      mcp,
    );
    const options: HarnessOptions = { elicitationHoldMs: 500 };
    await withAgentWorker(
      env,
      [agent],
      async (h) => {
        const run = await h.start('mcp-later', 'go');
        await expect.poll(async () => (await run.state()).pendingElicitations.length, { timeout: 20_000 }).toBe(1);
        // The activity stops holding the call after 500 ms; the run waits for the person.
        await expect
          .poll(
            async () =>
              (await run.state()).runningTools.length === 1 && (await run.state()).pendingElicitations.length === 1,
            {
              timeout: 10_000,
            },
          )
          .toBe(true);
        await new Promise((r) => setTimeout(r, 1_500));
        const [pending] = (await run.state()).pendingElicitations;
        await run.respondToElicitation(pending!.id, { action: 'accept', content: { name: 'Grace' } });
        const result = await run.result();
        expect(result.text).toContain('Grace');
        const counts = activityCounts(await run.handle.fetchHistory());
        expect(counts.executeTool).toBe(2);
        const events = await eventsOf(run);
        expect(events.filter((e) => e.type === 'elicitation-requested')).toHaveLength(1);
        await recordHistory('mcp-elicitation-reissue', env, run.id);
      },
      options,
    );
    await mcp.disconnect();
  });

  it("answers server-everything's elicitation through the run and shows its long-running progress (stdio and HTTP)", async () => {
    const everything = await startEverythingHttp();
    const mcp = new MCPConfiguration({
      listBudget: '2m',
      servers: { stdio: stdioEverything(), web: { type: 'streamable-http', url: `${everything.origin}/mcp` } },
    });
    const { agent } = mcpAgent(
      'everything',
      [
        {
          toolCalls: [
            { toolName: 'stdio_trigger-elicitation-request', input: {}, toolCallId: 'ask' },
            { toolName: 'web_trigger-long-running-operation', input: { duration: 3, steps: 6 }, toolCallId: 'long' },
          ],
        },
        (request) => ({ text: JSON.stringify([...toolResultsSeen(request).values()]) }),
      ],
      mcp,
    );
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('everything', 'go');
      await expect.poll(async () => (await run.state()).pendingElicitations.length, { timeout: 30_000 }).toBe(1);
      await expect
        .poll(async () => (await run.state()).runningTools.find((t) => t.toolCallId === 'long')?.progress?.value, {
          timeout: 20_000,
        })
        .toMatchObject({ total: 6 });
      const [pending] = (await run.state()).pendingElicitations;
      expect(pending!.serverName).toBe('stdio');
      await run.respondToElicitation(pending!.id, {
        action: 'accept',
        content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 },
      });
      const result = await run.result();
      expect(result.text).toContain('Ada Lovelace');
      expect(result.text).toContain('Long running operation completed');
      await recordHistory('mcp-everything-elicitation', env, run.id);
    });
    await mcp.disconnect();
    await everything.kill();
  });

  it('answers cancel to the server when nobody answers within the elicitation timeout', async () => {
    const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
    const { agent } = mcpAgent(
      'mcp-timeout',
      [
        { toolCalls: [{ toolName: 'local_elicit', input: {}, toolCallId: 'q' }] },
        (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('q')) }),
      ],
      mcp,
      { elicitation: { timeout: '1.5s' } },
    );
    await withAgentWorker(
      env,
      [agent],
      async (h) => {
        const run = await h.start('mcp-timeout', 'go');
        const result = await run.result();
        expect(result.text).toContain('cancel');
        const events = await eventsOf(run);
        expect(events.find((e) => e.type === 'elicitation-answered')).toMatchObject({
          action: 'cancel',
          timedOut: true,
        });
        expect((await run.state()).pendingElicitations).toEqual([]);
        await recordHistory('mcp-elicitation-timeout', env, run.id);
      },
      { elicitationHoldMs: 300 },
    );
    await mcp.disconnect();
  });

  it('gives the model a clear error when the server dies mid-call; the run goes on with a fresh connection', async () => {
    const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
    const { model, agent } = mcpAgent(
      'mcp-crash',
      [
        { toolCalls: [{ toolName: 'local_exit-now', input: {}, toolCallId: 'boom' }] },
        { toolCalls: [{ toolName: 'local_echo', input: { text: 'still here' }, toolCallId: 'after' }] },
        { text: 'recovered' },
      ],
      mcp,
    );
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('mcp-crash', 'go');
      const result = await run.result();
      expect(result.text).toBe('recovered');
      const seen = toolResultsSeen(model.requests[2]);
      expect(seen.get('boom')).toMatchObject({ type: 'json', value: { error: true, name: 'McpServerError' } });
      expect(JSON.stringify(seen.get('boom'))).toMatch(/connection|closed|exited/i);
      expect(JSON.stringify(seen.get('after'))).toContain('still here');
    });
    await mcp.disconnect();
  });

  it("checks authorization per run: each user's discovery filter and execution check, in concurrent runs", async () => {
    const checks: string[] = [];
    const mcp = new MCPConfiguration({
      listBudget: '2m',
      servers: { local: stdioFixture() },
      authorization: {
        filterOnDiscovery: true,
        can: ({ toolName, action, userId, arguments: args }) => {
          checks.push(`${action}:${userId}:${toolName}`);
          if (action === 'discovery') return userId === 'alice' || toolName === 'echo';
          return (args as { text?: string } | undefined)?.text !== 'forbidden' || userId === 'alice';
        },
      },
    });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { toolCalls: [{ toolName: 'local_echo', input: { text: 'forbidden' }, toolCallId: 'e' }] },
        (request) => ({
          text: JSON.stringify({ tools: request.toolNames.sort(), echo: toolResultsSeen(request).get('e') }),
        }),
      ],
    });
    const agent = new Agent({ name: 'mcp-auth', instructions: '', model, mcp });
    await withAgentWorker(env, [agent], async (h) => {
      const [alice, bob] = await Promise.all([
        h.start('mcp-auth', 'go', { userId: 'alice' }),
        h.start('mcp-auth', 'go', { userId: 'bob' }),
      ]);
      const [a, b] = await Promise.all([alice.result(), bob.result()]);
      const aliceSaw = JSON.parse(a.text) as { tools: string[]; echo: unknown };
      const bobSaw = JSON.parse(b.text) as { tools: string[]; echo: unknown };
      expect(aliceSaw.tools).toContain('local_add');
      expect(bobSaw.tools).not.toContain('local_add');
      expect(bobSaw.tools).toContain('local_echo');
      expect(JSON.stringify(aliceSaw.echo)).toContain('forbidden');
      expect(bobSaw.echo).toMatchObject({
        type: 'json',
        value: { name: 'MCPAuthorizationError', message: "Authorization denied for tool 'echo' on server 'local'" },
      });
    });
    expect(checks).toEqual(expect.arrayContaining(['execution:alice:echo', 'execution:bob:echo']));
    await mcp.disconnect();
  });

  it('refreshes a listing between steps after the server says its tools changed', async () => {
    const mcp = new MCPConfiguration({
      listBudget: '2m',
      servers: { remote: { type: 'streamable-http', url: `${http.origin}/mcp` } },
    });
    const tool = `dyn_${Date.now()}`;
    const { model, agent } = mcpAgent(
      'mcp-list-changed',
      [
        { toolCalls: [{ toolName: 'remote_add-tool', input: { name: tool }, toolCallId: 'add' }] },
        // The notification arrives on its own stream: by the next model call the worker knows, and the run re-lists.
        { delayMs: 500, toolCalls: [{ toolName: 'remote_echo', input: { text: 'x' }, toolCallId: 'echo' }] },
        { toolCalls: [{ toolName: `remote_${tool}`, input: {}, toolCallId: 'use' }] },
        (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('use')) }),
      ],
      mcp,
    );
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('mcp-list-changed', 'go');
      const result = await run.result();
      expect(result.text).toContain(`ran ${tool}`);
      expect(model.requests[0]!.toolNames).not.toContain(`remote_${tool}`);
      expect(model.requests[2]!.toolNames).toContain(`remote_${tool}`);
      const counts = activityCounts(await run.handle.fetchHistory());
      expect(counts.mcpListTools).toBe(2);
      const listed = (await eventsOf(run)).filter((e) => e.type === 'mcp-tools-listed');
      expect(listed).toHaveLength(2);
      expect((listed[1] as { version: string }).version).not.toBe((listed[0] as { version: string }).version);
      await recordHistory('mcp-list-changed', env, run.id);
    });
    await mcp.disconnect();
  });

  it('keeps MCP server secrets (headers, env) out of the whole history', async () => {
    const HEADER_CANARY = 'hdr-canary-7f3a9c';
    const ENV_CANARY = 'env-canary-51b2d8';
    const mcp = new MCPConfiguration({
      listBudget: '2m',
      servers: {
        local: stdioFixture({ CANARY: ENV_CANARY, FIXTURE_TOOLS: 'leaky' }),
        remote: {
          type: 'streamable-http',
          url: `${http.origin}/mcp`,
          requestInit: { headers: { Authorization: `Bearer ${HEADER_CANARY}` } },
        },
      },
    });
    const { agent } = mcpAgent(
      'mcp-secrets',
      [
        {
          toolCalls: [
            { toolName: 'local_env', input: {}, toolCallId: 'env' },
            { toolName: 'local_leaky', input: {}, toolCallId: 'leak' },
            { toolName: 'remote_echo', input: { text: 'hi' }, toolCallId: 'echo' },
          ],
        },
        { text: 'done' },
      ],
      mcp,
    );
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('mcp-secrets', 'go');
      expect((await run.result()).text).toBe('done');
      const findings = await scanRunForSecrets(
        { client: env.client, workflowId: run.id },
        { header: HEADER_CANARY, env: ENV_CANARY },
      );
      expect(findings).toEqual([]);
    });
    await mcp.disconnect();
  });
});
