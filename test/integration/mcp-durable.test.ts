// MCP in durable runs against a real Temporal server and real MCP servers: listings recorded once per run (an
// activity per server), MCP tool calls as their own executeTool activities, isError and failing servers as results
// and events the model and people can read, and elicitations answered by people through the run.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ScriptedLanguageModel, type ScriptedStep } from '../../src/models/scripted-model.js';
import type { RunEvent } from '../../src/protocol/index.js';
import { stdioFixture, startHttpFixture, stopAll, type HttpServerProcess } from '../fixtures/mcp/servers.js';
import { createTestEnv } from '../support/temporal.js';
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
    const mcp = new MCPConfiguration({ servers: { local: stdioFixture() } });
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
    const mcp = new MCPConfiguration({ servers: { local: stdioFixture() } });
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
      },
      options,
    );
    await mcp.disconnect();
  });
});
