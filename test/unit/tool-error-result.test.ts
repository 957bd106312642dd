// What the model (and history) gets from a failed tool call: allow-listed fields only, secrets redacted, the
// cause chain bounded — never an HTTP client's config, request, response headers, toJSON() or the stack.
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleLogger, setGlobalLogger } from '../../src/logger.js';
import { registerSecret } from '../../src/secrets/redact-secrets.js';
import { buildToolErrorResult } from '../../src/tool/error-result.js';

const TOKEN = 'canary-token-3f9a1c7e5b';

/** An error shaped like axios's: the request config (with headers), the request and the response hang off it. */
function httpClientError(): Error {
  const error = new Error('Request failed with status code 401');
  return Object.assign(error, {
    name: 'AxiosError',
    code: 'ERR_BAD_REQUEST',
    status: 401,
    config: { url: 'https://api.example.com/v1/things', headers: { Authorization: `Bearer ${TOKEN}` } },
    request: { _header: `GET /v1/things HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\n` },
    response: { status: 401, headers: { 'set-cookie': `session=${TOKEN}` }, data: { echoed: TOKEN } },
    toJSON: () => ({ config: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
  });
}

describe('buildToolErrorResult', () => {
  afterEach(() => setGlobalLogger(createConsoleLogger()));

  it('keeps message, name, code and status of an HTTP client error, and nothing it carries besides', () => {
    const result = buildToolErrorResult(httpClientError(), 'c1', 'fetch_things');
    expect(result).toEqual({
      error: true,
      name: 'AxiosError',
      message: 'Request failed with status code 401',
      toolCallId: 'c1',
      toolName: 'fetch_things',
      code: 'ERR_BAD_REQUEST',
      status: 401,
    });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('keeps validation issues, statusCode and httpStatus, and a cause chain of at most three errors', () => {
    const root = Object.assign(new Error('root'), { code: 'ECONNRESET', config: { headers: { key: TOKEN } } });
    const chain = new Error('level 1', {
      cause: new Error('level 2', { cause: new Error('level 3', { cause: root }) }),
    });
    const error = Object.assign(chain, {
      statusCode: 502,
      httpStatus: 503,
      issues: [{ path: ['a'], message: 'Required' }],
      validationErrors: [{ code: 'invalid_type' }],
      actualOutput: { n: 'seven' },
      headers: { Authorization: TOKEN },
    });
    const result = buildToolErrorResult(error, 'c2', 't');
    expect(result).toMatchObject({
      statusCode: 502,
      httpStatus: 503,
      issues: [{ path: ['a'], message: 'Required' }],
      validationErrors: [{ code: 'invalid_type' }],
      actualOutput: { n: 'seven' },
      cause: { name: 'Error', message: 'level 2', cause: { message: 'level 3', cause: { message: 'root' } } },
    });
    expect(result.cause?.cause?.cause?.cause).toBeUndefined();
    expect(result.cause?.cause?.cause).toEqual({ name: 'Error', message: 'root', code: 'ECONNRESET' });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('redacts registered secrets and URL credentials from messages and data', () => {
    registerSecret(TOKEN);
    const error = Object.assign(new Error(`upstream said: bad key ${TOKEN} for https://bob:hunter2@db.internal/x`), {
      actualOutput: { echoed: `Bearer ${TOKEN}` },
    });
    const result = buildToolErrorResult(error, 'c3', 't');
    expect(result.message).toBe('upstream said: bad key [REDACTED] for https://[REDACTED]@db.internal/x');
    expect(result.actualOutput).toEqual({ echoed: 'Bearer [REDACTED]' });
  });

  it('describes thrown non-errors without copying them', () => {
    expect(buildToolErrorResult({ message: 'obj', name: 'Custom', secret: TOKEN }, 'c', 't')).toEqual({
      error: true,
      name: 'Custom',
      message: 'obj',
      toolCallId: 'c',
      toolName: 't',
    });
    expect(buildToolErrorResult({ config: { token: TOKEN }, status: 500 }, 'c', 't')).toMatchObject({
      message: 'The tool threw a value without a message (Object), not an Error.',
      status: 500,
    });
    expect(buildToolErrorResult(42, 'c', 't')).toMatchObject({ name: 'Error', message: '42' });
    expect(buildToolErrorResult(Object.create(null), 'c', 't').message).toBe(
      'The tool threw a value without a message (no prototype), not an Error.',
    );
  });

  it('sends the stack to the worker log instead', () => {
    const logged: unknown[][] = [];
    setGlobalLogger({ ...createConsoleLogger('error'), debug: (...args: unknown[]) => logged.push(args) });
    const result = buildToolErrorResult(new Error('boom'), 'c4', 'exploder');
    expect(result).not.toHaveProperty('stack');
    expect(logged).toHaveLength(1);
    expect(logged[0]![0]).toBe(`Tool 'exploder' failed (call c4)`);
    expect((logged[0]![1] as { stack: string }).stack).toContain('Error: boom');
  });
});
