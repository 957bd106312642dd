import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { boundedFetch } from '../../src/mcp/bounded-fetch.js';
import { fingerprint } from '../../src/mcp/config-fingerprint.js';
import { classifyConnectionFailure, type ConnectionFailureContext } from '../../src/mcp/connection-failure.js';
import { createRedactor } from '../../src/mcp/secrets.js';

const context: ConnectionFailureContext = {
  serverName: 'srv',
  toolName: 'write',
  requestSent: true,
  redactor: createRedactor(['tok-secret-123']),
  stderrTail: 'boom with tok-secret-123',
  oversized: false,
};

describe('classifyConnectionFailure', () => {
  it('a closed connection mid-call is lost, broken, and not retry-safe for a tool that may have run', () => {
    const { error, broken } = classifyConnectionFailure(
      new McpError(ErrorCode.ConnectionClosed, 'Connection closed'),
      context,
    );
    expect(broken).toBe(true);
    expect(error).toMatchObject({ reason: 'connection-lost', requestSent: true, retrySafe: false });
    expect(error.message).toMatch(/may repeat its effect\. Server stderr: boom with \[REDACTED\]$/);
  });

  it('requests that never reached the server are retry-safe', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    expect(classifyConnectionFailure(refused, context).error).toMatchObject({
      reason: 'connection-lost',
      retrySafe: true,
    });
    expect(classifyConnectionFailure(new Error('Not connected'), context).error.retrySafe).toBe(true);
    const expired = new StreamableHTTPError(404, 'Session not found');
    expect(classifyConnectionFailure(expired, context)).toMatchObject({ broken: true, error: { retrySafe: true } });
  });

  it('server-side errors keep the connection: protocol errors, HTTP 4xx, malformed answers', () => {
    const invalid = classifyConnectionFailure(new McpError(ErrorCode.InvalidParams, 'bad args'), context);
    expect(invalid).toMatchObject({ broken: false, error: { reason: 'protocol' } });
    const denied = classifyConnectionFailure(new StreamableHTTPError(401, 'Unauthorized tok-secret-123'), context);
    expect(denied).toMatchObject({ broken: false, error: { reason: 'protocol', requestSent: false } });
    expect(denied.error.message).not.toContain('tok-secret-123');
    const zod = Object.assign(new Error('invalid'), { name: 'ZodError' });
    expect(classifyConnectionFailure(zod, context)).toMatchObject({ broken: false, error: { reason: 'protocol' } });
  });

  it('an oversized message and an idempotent tool', () => {
    expect(classifyConnectionFailure(new Error('x'), { ...context, oversized: true }).error.reason).toBe(
      'result-too-large',
    );
    expect(
      classifyConnectionFailure(new Error('socket hang up'), { ...context, idempotent: true }).error,
    ).toMatchObject({
      reason: 'connection-lost',
      retrySafe: true,
      message: expect.stringMatching(/marked idempotent/),
    });
  });
});

describe('boundedFetch', () => {
  const body = (text: string, type: string) => async () => new Response(text, { headers: { 'content-type': type } });

  it('passes a JSON body under the bound and refuses one over it', async () => {
    const oversize = vi.fn();
    expect(await (await boundedFetch(10, oversize, body('{"a":1}', 'application/json'))('http://x')).text()).toBe(
      '{"a":1}',
    );
    const big = await boundedFetch(10, oversize, body('{"a":"0123456789"}', 'application/json'))('http://x');
    await expect(big.text()).rejects.toThrow(/over 10 bytes/);
    expect(oversize).toHaveBeenCalledOnce();
  });

  it('bounds each SSE event, not the whole stream', async () => {
    const oversize = vi.fn();
    const events = 'data: 12345\n\n'.repeat(20);
    const response = await boundedFetch(16, oversize, body(events, 'text/event-stream'))('http://x');
    expect(await response.text()).toBe(events);
    expect(oversize).not.toHaveBeenCalled();
    const one = await boundedFetch(16, oversize, body(`data: ${'x'.repeat(40)}\n\n`, 'text/event-stream'))('http://x');
    await expect(one.text()).rejects.toThrow(/over 16 bytes/);
  });
});

describe('fingerprint', () => {
  it('is equal for equal plain configs and differs when anything differs, without holding the secret', () => {
    const a = fingerprint({
      type: 'http',
      url: 'https://x/mcp',
      requestInit: { headers: { Authorization: 'Bearer s3cr3t' } },
    });
    const b = fingerprint({
      requestInit: { headers: { Authorization: 'Bearer s3cr3t' } },
      url: 'https://x/mcp',
      type: 'http',
    });
    const c = fingerprint({
      type: 'http',
      url: 'https://x/mcp',
      requestInit: { headers: { Authorization: 'Bearer other' } },
    });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).not.toContain('s3cr3t');
  });

  it('counts functions and class instances by identity', () => {
    const fetchA = async () => new Response('');
    const withFetch = (f: unknown) =>
      fingerprint({ type: 'sse', url: 'https://x', eventSourceInit: { fetch: f } as never });
    expect(withFetch(fetchA)).toBe(withFetch(fetchA));
    expect(withFetch(fetchA)).not.toBe(withFetch(async () => new Response('')));
  });
});
