// The MCP library against real servers: our fixture over stdio, Streamable HTTP and SSE (reached directly and
// through the `http` fallback), with VoltAgent's accessors, one failing server among working ones, and the
// conversion of remote results into tool results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPConfiguration, mcpToolsFromListing, type McpServerListing } from '../../src/mcp/index.js';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline } from '../../src/tool/pipeline.js';
import type { AnyTool } from '../../src/tool/tool.js';
import { startHttpFixture, stdioFixture, stopAll, type HttpServerProcess } from '../fixtures/mcp/servers.js';
import { captureLogs, messagesAt } from '../unit/support/log-capture.js';

const logs = captureLogs();
let streamable: HttpServerProcess;
let sseOnly: HttpServerProcess;
let mcp: MCPConfiguration<'local' | 'remote' | 'legacy' | 'fallback' | 'down'>;

beforeAll(async () => {
  [streamable, sseOnly] = await Promise.all([startHttpFixture('streamable-http'), startHttpFixture('sse')]);
  mcp = new MCPConfiguration({
    listBudget: '2m',
    servers: {
      local: stdioFixture(),
      remote: { type: 'streamable-http', url: `${streamable.origin}/mcp` },
      legacy: { type: 'sse', url: `${sseOnly.origin}/sse` },
      fallback: { type: 'http', url: `${sseOnly.origin}/sse` },
      // Nothing listens on port 9 (discard) here: both transports fail.
      down: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
    },
    poolOptions: { connectTimeoutMs: 5000 },
  });
});

afterAll(async () => {
  await mcp?.disconnect();
  await stopAll();
});

function run(tool: AnyTool, args: unknown, toolCallId = 'call-1') {
  return runToolPipeline({
    tool,
    args,
    toolCallId,
    options: createToolExecuteOptions({ toolName: tool.name, toolCallId }),
  });
}

describe('MCPConfiguration over every transport', () => {
  it('loads every working server’s tools; the failing one is logged and reported, never hiding the others', async () => {
    const { tools, failures } = await mcp.loadTools();
    const names = tools.map((tool) => tool.name);
    for (const server of ['local', 'remote', 'legacy', 'fallback']) {
      expect(names).toContain(`${server}_echo`);
      // The tool with an unconvertible schema is skipped; its siblings load.
      expect(names).not.toContain(`${server}_broken-schema`);
    }
    expect(names.some((name) => name.startsWith('down_'))).toBe(false);
    expect(failures).toEqual([
      {
        serverName: 'down',
        reason: 'connect-failed',
        message: expect.stringMatching(/^MCP connection failed with both transports: .+, SSE: .+/),
      },
    ]);
    expect(messagesAt(logs, 'error').join('\n')).toMatch(/Error fetching tools from MCP server down/);
    // Skipped while listing (its pattern does not compile), with the reason, in one warning per listing.
    expect(messagesAt(logs, 'warn').join('\n')).toMatch(/'broken-schema' \(its input schema cannot be used: pattern/);
  });

  it('runs tools on each transport: text, structured content, isError and a throwing remote tool', async () => {
    const tools = await mcp.getTools();
    const byName = (name: string) => tools.find((tool) => tool.name === name)!;
    for (const server of ['local', 'remote', 'legacy', 'fallback']) {
      expect(await run(byName(`${server}_echo`), { text: `hi ${server}` })).toMatchObject({
        kind: 'ok',
        output: `hi ${server}`,
      });
      expect(await run(byName(`${server}_add`), { a: 2, b: 3 })).toMatchObject({ kind: 'ok', output: { sum: 5 } });
    }
    const isError = await run(byName('remote_is-error'), {});
    expect(isError).toMatchObject({
      kind: 'error',
      output: { error: true, name: 'McpToolError', message: 'the remote tool reported a failure' },
    });
    // A handler that throws makes the SDK's low-level server answer with a JSON-RPC error: a protocol failure,
    // which also reaches the model as an error result (and the run goes on).
    const thrown = await run(byName('local_fail'), { message: 'disk on fire' });
    expect(thrown).toMatchObject({
      kind: 'error',
      output: { name: 'McpServerError', reason: 'protocol', message: expect.stringMatching(/disk on fire/) },
    });
    const mixed = await run(byName('legacy_image'), {});
    expect(mixed).toMatchObject({
      kind: 'ok',
      output: [
        { type: 'text', text: 'a red dot' },
        { type: 'image', mimeType: 'image/png', data: expect.any(String) },
      ],
    });
  });

  it('getToolsets groups by server and omits failing servers; raw accessors give plain definitions', async () => {
    const toolsets = await mcp.getToolsets();
    expect(Object.keys(toolsets).sort()).toEqual(['fallback', 'legacy', 'local', 'remote']);
    expect(toolsets.local.local_echo!.name).toBe('local_echo');
    expect(toolsets.local.getTools().map((tool) => tool.name)).toContain('local_add');
    const raw = await mcp.getRawTools();
    expect(raw['remote.echo']).toMatchObject({ name: 'echo', description: 'Echoes the text back.' });
    const rawSets = await mcp.getRawToolsets();
    expect(rawSets.legacy.add).toMatchObject({ name: 'add', outputSchema: expect.any(Object) });
    expect(JSON.parse(JSON.stringify(rawSets))).toEqual(rawSets);
  });

  it('getClient returns the same connected client; getClients lists the reachable ones', async () => {
    const first = await mcp.getClient('remote');
    expect(first).toBeDefined();
    expect(await mcp.getClient('remote')).toBe(first);
    expect(Object.keys(await first!.listTools())).toContain('echo');
    const calls: string[] = [];
    first!.on('toolCall', (name, _args, outcome) => calls.push(`${name}:${outcome.kind}`));
    await first!.callTool({ name: 'echo', arguments: { text: 'event' } });
    expect(calls).toEqual(['echo:ok']);
    expect(await mcp.getClient('down')).toBeUndefined();
    const clients = await mcp.getClients();
    expect(Object.keys(clients).sort()).toEqual(['fallback', 'legacy', 'local', 'remote']);
  });

  it('the http type falls back to SSE when Streamable HTTP is refused', async () => {
    const listing = await mcp.listServerTools('fallback');
    expect(listing.tools.map((tool) => tool.name)).toContain('echo');
    const outcome = await mcp.callServerTool('fallback', 'echo', { text: 'via sse' });
    expect(outcome).toEqual({ v: 1, kind: 'ok', output: 'via sse' });
  });

  it('tools rebuilt from a recorded (JSON round-tripped) listing call the server like live ones', async () => {
    const recorded = JSON.parse(JSON.stringify(await mcp.listServerTools('remote'))) as McpServerListing;
    const tools = mcpToolsFromListing('remote', recorded, (tool, args, options) =>
      mcp.callServerTool('remote', tool.name, args, { signal: options.abortSignal, userId: options.userId }),
    );
    const add = tools.find((tool) => tool.name === 'remote_add')!;
    expect(await run(add, { a: 20, b: 22 })).toMatchObject({ kind: 'ok', output: { sum: 42 } });
    const viaConfiguration = mcp.toolsFromListing('remote', recorded).find((tool) => tool.name === 'remote_echo')!;
    expect(await run(viaConfiguration, { text: 'recorded' })).toMatchObject({ kind: 'ok', output: 'recorded' });
  });

  it('a server in back-off fails fast with retryAfterMs instead of reconnecting on every call', async () => {
    const started = Date.now();
    const error = await mcp.listServerTools('down').catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'connect-failed', retryAfterMs: expect.any(Number) });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('disconnect closes the connections; the next use reconnects', async () => {
    await mcp.disconnect();
    expect(await mcp.callServerTool('local', 'echo', { text: 'again' })).toEqual({ v: 1, kind: 'ok', output: 'again' });
  });
});
