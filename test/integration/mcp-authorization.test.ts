// Authorization of MCP tools with two users against a real (stdio fixture) server: discovery filtering in every
// accessor, execution checks on by default that see each call's own user and context, denial as a tool error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPConfiguration, type MCPCanParams } from '../../src/mcp/index.js';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline } from '../../src/tool/pipeline.js';
import type { AnyTool } from '../../src/tool/tool.js';
import { stdioFixture, stopAll } from '../fixtures/mcp/servers.js';
import { captureLogs } from '../unit/support/log-capture.js';

captureLogs();

// alice is an admin; bob may only use read-only tools (echo). The role comes from the call's context.
const asked: MCPCanParams[] = [];
const can = ({ toolName, context, action, userId }: MCPCanParams) => {
  asked.push({ toolName, action, userId, serverName: 'srv', context });
  if (context?.get('role') === 'admin') return true;
  return toolName === 'echo' ? true : { allowed: false, reason: `${userId ?? 'anonymous'} is not an admin` };
};

let filtered: MCPConfiguration<'srv'>;
let unfiltered: MCPConfiguration<'srv'>;

beforeAll(() => {
  const servers = { srv: stdioFixture() };
  filtered = new MCPConfiguration({ listBudget: '2m', servers, authorization: { can, filterOnDiscovery: true } });
  unfiltered = new MCPConfiguration({ listBudget: '2m', servers, authorization: { can } });
});

afterAll(async () => {
  await Promise.all([filtered?.disconnect(), unfiltered?.disconnect()]);
  await stopAll();
});

const alice = { userId: 'alice', context: { role: 'admin' } };
const bob = { userId: 'bob', context: new Map([['role', 'viewer']]) };

function run(
  tool: AnyTool,
  args: unknown,
  who: { userId: string; context: Map<string, unknown> | Record<string, unknown> },
) {
  const context = who.context instanceof Map ? who.context : new Map(Object.entries(who.context));
  return runToolPipeline({
    tool,
    args,
    toolCallId: `call-${who.userId}`,
    options: createToolExecuteOptions({
      toolName: tool.name,
      toolCallId: `call-${who.userId}`,
      userId: who.userId,
      context,
    }),
  });
}

describe('MCP authorization', () => {
  it('filterOnDiscovery hides refused tools from every accessor, per user', async () => {
    const bobTools = (await filtered.getTools(bob)).map((tool) => tool.name);
    const aliceTools = (await filtered.getTools(alice)).map((tool) => tool.name);
    expect(bobTools).toEqual(['srv_echo']);
    expect(aliceTools).toEqual(expect.arrayContaining(['srv_echo', 'srv_add', 'srv_env']));
    expect(Object.keys((await filtered.getToolsets(bob)).srv)).toEqual(['srv_echo']);
    expect(Object.keys(await filtered.getRawTools(bob))).toEqual(['srv.echo']);
    expect(Object.keys((await filtered.getRawToolsets(bob)).srv)).toEqual(['echo']);
    expect((await filtered.listServerTools('srv', bob)).tools.map((tool) => tool.name)).toEqual(['echo']);
    const discovery = asked.filter((params) => params.action === 'discovery' && params.userId === 'bob');
    expect(discovery[0]).toMatchObject({ toolName: 'echo', action: 'discovery', userId: 'bob' });
    expect(discovery[0]!.context).toBeInstanceOf(Map);
  });

  it('without filterOnDiscovery tools are listed, and execution is checked by default with the call’s own user', async () => {
    // Tools built once (no auth context), then used by two users concurrently: each check sees its own caller.
    const tools = await unfiltered.getTools();
    const add = tools.find((tool) => tool.name === 'srv_add')!;
    asked.length = 0;
    const [forAlice, forBob] = await Promise.all([run(add, { a: 1, b: 2 }, alice), run(add, { a: 1, b: 2 }, bob)]);
    expect(forAlice).toMatchObject({ kind: 'ok', output: { sum: 3 } });
    expect(forBob).toMatchObject({
      kind: 'error',
      output: {
        error: true,
        name: 'MCPAuthorizationError',
        message: "Authorization denied for tool 'add' on server 'srv': bob is not an admin",
        serverName: 'srv',
        reason: 'bob is not an admin',
      },
    });
    const execution = asked.filter((params) => params.action === 'execution');
    expect(execution.map((params) => [params.userId, params.toolName])).toEqual(
      expect.arrayContaining([
        ['alice', 'add'],
        ['bob', 'add'],
      ]),
    );
  });

  it('getToolsets applies the execution check too (VoltAgent skips it)', async () => {
    const toolsets = await unfiltered.getToolsets();
    const env = toolsets.srv.srv_env!;
    expect(await run(env, {}, bob)).toMatchObject({ kind: 'error', output: { name: 'MCPAuthorizationError' } });
  });

  it('callServerTool refuses for the given user; checkOnExecution: false turns the check off', async () => {
    await expect(unfiltered.callServerTool('srv', 'add', { a: 1, b: 1 }, bob)).rejects.toMatchObject({
      name: 'MCPAuthorizationError',
      toolName: 'add',
    });
    const open = new MCPConfiguration({
      listBudget: '2m',
      servers: { srv: stdioFixture() },
      authorization: { can, checkOnExecution: false },
    });
    try {
      expect(await open.callServerTool('srv', 'add', { a: 1, b: 1 }, bob)).toMatchObject({
        kind: 'ok',
        output: { sum: 2 },
      });
    } finally {
      await open.disconnect();
    }
  });

  it('a can() that throws refuses (fail closed)', async () => {
    const broken = new MCPConfiguration({
      listBudget: '2m',
      servers: { srv: stdioFixture() },
      authorization: {
        can: () => {
          throw new Error('policy service down');
        },
      },
    });
    try {
      await expect(broken.callServerTool('srv', 'echo', { text: 'x' }, alice)).rejects.toMatchObject({
        name: 'MCPAuthorizationError',
        reason: 'the authorization check failed: policy service down',
      });
    } finally {
      await broken.disconnect();
    }
  });
});
