import { describe, expect, it, vi } from 'vitest';
import { normalizeCallResult, type McpCallOutcome } from '../../src/mcp/call-result.js';
import { McpFailureType, classifyMcpError } from '../../src/mcp/classify-mcp-error.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { MCPAuthorizationError } from '../../src/mcp/errors/mcp-authorization-error.js';
import { MCPConfigurationError } from '../../src/mcp/errors/mcp-configuration-error.js';
import { McpServerError } from '../../src/mcp/errors/mcp-server-error.js';
import { McpToolError } from '../../src/mcp/errors/mcp-tool-error.js';
import { DEFAULT_LISTING_LIMITS, normalizeListing, type McpToolDefinition } from '../../src/mcp/listing.js';
import { PausableDeadline } from '../../src/mcp/pausable-deadline.js';
import { createRedactor } from '../../src/mcp/secrets.js';
import { mcpToolOrigin, mcpToolsFromListing } from '../../src/mcp/tools-from-listing.js';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline } from '../../src/tool/pipeline.js';
import { captureLogs, messagesAt } from './support/log-capture.js';

const logs = captureLogs();
const objectSchema = (properties: Record<string, any> = {}): any => ({ type: 'object' as const, properties });

describe('normalizeListing', () => {
  it('keeps valid tools, known annotations and descriptions; the version is a content hash', () => {
    const tools = [
      {
        name: 'search',
        description: 'Searches.',
        inputSchema: objectSchema({ q: { type: 'string' } }),
        annotations: { readOnlyHint: true, title: 'Search', evil: 'x' } as never,
      },
    ];
    const a = normalizeListing('srv', tools);
    expect(a.tools).toEqual([
      {
        name: 'search',
        description: 'Searches.',
        inputSchema: objectSchema({ q: { type: 'string' } }),
        annotations: { readOnlyHint: true, title: 'Search' },
      },
    ]);
    expect(normalizeListing('srv', tools).version).toBe(a.version);
    expect(normalizeListing('srv', [{ ...tools[0]!, description: 'Other.' }]).version).not.toBe(a.version);
  });

  it('skips bad names, duplicates, oversized schemas and tools past the limit, logging once with the reasons', () => {
    const huge = objectSchema({
      a: { type: 'string', description: 'x'.repeat(DEFAULT_LISTING_LIMITS.maxSchemaBytes) },
    });
    const listing = normalizeListing(
      'srv',
      [
        { name: 'ok', inputSchema: objectSchema() },
        { name: 'ok', inputSchema: objectSchema() },
        { name: 'bad name!', inputSchema: objectSchema() },
        { name: 'huge', inputSchema: huge },
        { name: 'one-too-many', inputSchema: objectSchema() },
      ],
      { ...DEFAULT_LISTING_LIMITS, maxTools: 1 },
    );
    expect(listing.tools.map((tool) => tool.name)).toEqual(['ok']);
    // Tools past maxTools are counted in one entry, not named (a server may list 50,000).
    expect(listing.skipped.map((entry) => entry.name)).toEqual(['ok', 'bad name!', 'huge', '*']);
    expect(listing.skipped[2]!.reason).toMatch(/over the limit of 65536 \(maxSchemaBytes\)/);
    expect(listing.skipped[3]!.reason).toMatch(/more than 1 tools \(maxTools\): 1 more left out/);
    expect(messagesAt(logs, 'warn').filter((m) => m.includes("MCP server 'srv'"))).toHaveLength(1);
  });

  it('redacts secrets and cuts long descriptions', () => {
    const listing = normalizeListing(
      'srv',
      [{ name: 'leaky', description: `key=canary-key-123 ${'d'.repeat(5000)}`, inputSchema: objectSchema() }],
      DEFAULT_LISTING_LIMITS,
      createRedactor(['canary-key-123']),
    );
    expect(listing.tools[0]!.description).toMatch(/^key=\[REDACTED\] d+…$/);
    expect(listing.tools[0]!.description!.length).toBeLessThanOrEqual(DEFAULT_LISTING_LIMITS.maxDescriptionChars);
  });
});

describe('normalizeCallResult', () => {
  const context = { serverName: 'srv', toolName: 't' };

  it('prefers structuredContent, then joined text, then the content items', () => {
    expect(
      normalizeCallResult({ content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } }, context),
    ).toEqual({ v: 1, kind: 'ok', output: { sum: 3 } });
    expect(
      normalizeCallResult(
        {
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        context,
      ),
    ).toEqual({ v: 1, kind: 'ok', output: 'a\nb' });
    expect(normalizeCallResult({ content: [] }, context)).toEqual({ v: 1, kind: 'ok', output: '' });
    expect(
      normalizeCallResult(
        {
          content: [
            { type: 'text', text: 'dot', _meta: { x: 1 } },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
            { type: 'resource_link', uri: 'file:///a', name: 'a' },
            { type: 'resource', resource: { uri: 'file:///b', text: 'B', mimeType: 'text/plain' } },
          ],
        },
        context,
      ),
    ).toEqual({
      v: 1,
      kind: 'ok',
      output: [
        { type: 'text', text: 'dot' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///b', mimeType: 'text/plain', text: 'B' } },
      ],
    });
  });

  it('turns isError into a tool-error outcome with the text as message', () => {
    expect(normalizeCallResult({ content: [{ type: 'text', text: 'boom' }], isError: true }, context)).toEqual({
      v: 1,
      kind: 'tool-error',
      message: 'boom',
      content: [{ type: 'text', text: 'boom' }],
    });
  });

  it('refuses an outcome over maxResultBytes (UTF-8 bytes, not characters)', () => {
    const text = 'é'.repeat(600); // 1200 bytes, 600 characters
    expect(() =>
      normalizeCallResult({ content: [{ type: 'text', text }] }, { ...context, maxResultBytes: 1000 }),
    ).toThrow(/returned \d+ bytes, over the limit of 1000 \(maxResultBytes\)/);
    expect(normalizeCallResult({ content: [{ type: 'text', text }] }, { ...context, maxResultBytes: 1300 }).kind).toBe(
      'ok',
    );
  });
});

describe('mcpToolsFromListing', () => {
  const definitions: McpToolDefinition[] = [
    {
      name: 'echo',
      description: 'Echoes.',
      inputSchema: objectSchema({ text: { type: 'string' } }),
      annotations: { readOnlyHint: true },
    },
    { name: 'silent', inputSchema: objectSchema() },
    { name: 'broken', inputSchema: objectSchema({ code: { type: 'string', pattern: '([' } }) },
  ];

  it('names tools <server>_<tool>, defaults descriptions, carries annotations, skips unconvertible schemas', () => {
    const tools = mcpToolsFromListing('srv', definitions, vi.fn());
    expect(tools.map((tool) => tool.name)).toEqual(['srv_echo', 'srv_silent']);
    expect(tools[0]!.description).toBe('Echoes.');
    expect(tools[1]!.description).toBe('Executes the remote tool: silent');
    expect(tools[0]!.mcp).toEqual({ readOnlyHint: true });
    expect(mcpToolOrigin(tools[0])).toMatchObject({ serverName: 'srv', toolName: 'echo' });
    expect(messagesAt(logs, 'error').join('\n')).toMatch(
      /Failed to create tool wrapper for 'broken' on MCP server 'srv'/,
    );
  });

  it('calls with the current call options and returns the output; isError reaches the model as an error', async () => {
    const calls: unknown[] = [];
    let next: McpCallOutcome = { v: 1, kind: 'ok', output: 'hi' };
    const [echo] = mcpToolsFromListing('srv', definitions, async (definition, args, options) => {
      calls.push([definition.name, args, options.userId]);
      return next;
    });
    const options = createToolExecuteOptions({ toolName: 'srv_echo', toolCallId: 'c1', userId: 'u1' });
    const ok = await runToolPipeline({ tool: echo!, args: { text: 'hi' }, toolCallId: 'c1', options });
    expect(ok).toMatchObject({ kind: 'ok', output: 'hi' });
    next = { v: 1, kind: 'tool-error', message: 'remote failure', content: [{ type: 'text', text: 'remote failure' }] };
    const failed = await runToolPipeline({ tool: echo!, args: { text: 'x' }, toolCallId: 'c2', options });
    expect(failed).toMatchObject({
      kind: 'error',
      output: { error: true, name: 'McpToolError', message: 'remote failure', serverName: 'srv', toolName: 'srv_echo' },
    });
    expect(calls).toEqual([
      ['echo', { text: 'hi' }, 'u1'],
      ['echo', { text: 'x' }, 'u1'],
    ]);
  });
});

describe('errors', () => {
  it('MCPAuthorizationError keeps VoltAgent message and fields, recognised across copies', () => {
    const error = new MCPAuthorizationError('delete_item', 'db', 'admins only');
    expect(error.message).toBe("Authorization denied for tool 'delete_item' on server 'db': admins only");
    expect(new MCPAuthorizationError('a', 'b').message).toBe("Authorization denied for tool 'a' on server 'b'");
    expect(error).toMatchObject({
      name: 'MCPAuthorizationError',
      toolName: 'delete_item',
      serverName: 'db',
      reason: 'admins only',
    });
    expect(MCPAuthorizationError.isInstance(error)).toBe(true);
    expect(
      MCPAuthorizationError.isInstance(
        Object.assign(new Error('x'), { [Symbol.for('durable-agent.error.MCPAuthorizationError')]: true }),
      ),
    ).toBe(true);
    expect(MCPAuthorizationError.isInstance(new Error('x'))).toBe(false);
    expect(
      McpToolError.isInstance(new McpToolError({ serverName: 's', toolName: 't', message: '', content: [] })),
    ).toBe(true);
  });

  it('McpServerError.retrySafe: unsent requests and idempotent operations only', () => {
    expect(
      new McpServerError({ serverName: 's', reason: 'connection-lost', message: 'm', requestSent: false }).retrySafe,
    ).toBe(true);
    expect(
      new McpServerError({ serverName: 's', reason: 'connection-lost', message: 'm', requestSent: true }).retrySafe,
    ).toBe(false);
    expect(
      new McpServerError({ serverName: 's', reason: 'timeout', message: 'm', requestSent: true, idempotent: true })
        .retrySafe,
    ).toBe(true);
    expect(McpServerError.isInstance(new McpServerError({ serverName: 's', reason: 'protocol', message: 'm' }))).toBe(
      true,
    );
  });

  it('classifyMcpError gives stable types and retry decisions', () => {
    const classify = (error: unknown) => classifyMcpError(error);
    const connect = classify(
      new McpServerError({ serverName: 's', reason: 'connect-failed', message: 'm', retryAfterMs: 2000 }),
    );
    expect(connect).toMatchObject({ type: McpFailureType.ConnectFailed, nonRetryable: false });
    expect(connect.nextRetryDelay).toBe(2000);
    expect(
      classify(new McpServerError({ serverName: 's', reason: 'connection-lost', message: 'm', requestSent: true })),
    ).toMatchObject({
      type: McpFailureType.ConnectionLost,
      nonRetryable: true,
    });
    expect(
      classify(new McpServerError({ serverName: 's', reason: 'connection-lost', message: 'm', requestSent: false })),
    ).toMatchObject({
      nonRetryable: false,
    });
    expect(classify(new McpServerError({ serverName: 's', reason: 'result-too-large', message: 'm' }))).toMatchObject({
      type: McpFailureType.ResultTooLarge,
      nonRetryable: true,
    });
    expect(classify(new MCPAuthorizationError('t', 's'))).toMatchObject({
      type: McpFailureType.AuthorizationDenied,
      nonRetryable: true,
    });
    expect(classify(new Error('odd'))).toMatchObject({ type: McpFailureType.Unknown, nonRetryable: false });
  });
});

describe('configuration validation', () => {
  it('rejects an unsupported type at construction with VoltAgent’s message', () => {
    const build = () => new MCPConfiguration({ servers: { x: { type: 'websocket', url: 'ws://x' } as never } });
    expect(build).toThrow(/^Unsupported server configuration type: websocket/);
    try {
      build();
    } catch (error) {
      expect(MCPConfigurationError.isInstance(error)).toBe(true);
    }
    expect(() => new MCPConfiguration({ servers: { x: {} as never } })).toThrow(
      /^Unsupported server configuration type: unknown/,
    );
    expect(() => new MCPConfiguration({ servers: { x: { type: 'http', url: 'not a url' } } })).toThrow(
      /valid absolute 'url'/,
    );
  });

  it('takes the listing budget as ms or a duration, and refuses a budget under 1 ms', () => {
    expect(new MCPConfiguration({ servers: {} }).listBudgetMs).toBeUndefined();
    expect(new MCPConfiguration({ servers: {}, listBudget: '10s' }).listBudgetMs).toBe(10_000);
    expect(new MCPConfiguration({ servers: {}, listBudget: 250 }).listBudgetMs).toBe(250);
    expect(() => new MCPConfiguration({ servers: {}, listBudget: 0 })).toThrow(/listBudget must be at least 1 ms/);
    expect(() => new MCPConfiguration({ servers: {}, listBudget: 'soon' })).toThrow(/Invalid duration: 'soon'/);
  });

  it('an unknown server name is a classified configuration error', async () => {
    const mcp = new MCPConfiguration<string>({ servers: {} });
    await expect(mcp.listServerTools('nope')).rejects.toMatchObject({ reason: 'configuration' });
    expect(await mcp.getClient('nope')).toBeUndefined();
    expect(messagesAt(logs, 'warn')).toContain('No configuration found for server: nope');
  });
});

describe('PausableDeadline', () => {
  it('fires after the timeout, not counting paused time', async () => {
    vi.useFakeTimers();
    try {
      const fired = vi.fn();
      const deadline = new PausableDeadline(100, fired);
      vi.advanceTimersByTime(60);
      deadline.pause();
      vi.advanceTimersByTime(1000);
      expect(fired).not.toHaveBeenCalled();
      deadline.resume();
      vi.advanceTimersByTime(39);
      expect(fired).not.toHaveBeenCalled();
      vi.advanceTimersByTime(2);
      expect(fired).toHaveBeenCalledOnce();
      expect(deadline.expired).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('nested pauses need as many resumes; restart gives the full time; cancel stops it', () => {
    vi.useFakeTimers();
    try {
      const fired = vi.fn();
      const deadline = new PausableDeadline(100, fired);
      deadline.pause();
      deadline.pause();
      deadline.resume();
      vi.advanceTimersByTime(500);
      expect(fired).not.toHaveBeenCalled();
      deadline.resume();
      vi.advanceTimersByTime(90);
      deadline.restart();
      vi.advanceTimersByTime(90);
      expect(fired).not.toHaveBeenCalled();
      deadline.cancel();
      vi.advanceTimersByTime(500);
      expect(fired).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });
});
