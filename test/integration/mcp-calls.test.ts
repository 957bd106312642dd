// The worker-side building blocks against real fixture servers: the connection pool (reuse, eviction, idle
// close, shutdown), cancellation, the pausable timeout, per-call elicitation handlers under concurrency, answer
// validation, progress, tools/list_changed, servers killed mid-call, and secrets kept out of every result.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  MCPConfiguration,
  McpConnectionPool,
  REDACTED,
  classifyMcpError,
  type McpElicitationRequest,
  type MCPServerConfig,
  type McpProgress,
} from '../../src/mcp/index.js';
import { startHttpFixture, stdioFixture, stopAll, type HttpServerProcess } from '../fixtures/mcp/servers.js';
import { captureLogs, messagesAt } from '../unit/support/log-capture.js';

const logs = captureLogs();
const CANARY = 'canary-7f3a9c1e5b2d';
const HEADER_CANARY = 'hdr-canary-0d4e8a6b9f';

let http: HttpServerProcess;
let pool: McpConnectionPool;
let mcp: MCPConfiguration<'local' | 'remote'>;
let servers: Record<'local' | 'remote', MCPServerConfig>;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  http = await startHttpFixture('streamable-http', { FIXTURE_TOKEN: HEADER_CANARY });
  pool = new McpConnectionPool({ maxConnectionsPerServer: 3, connectTimeoutMs: 10_000 });
  servers = {
    local: stdioFixture({ SERVICE_TOKEN: CANARY, FIXTURE_TOOLS: 'leaky', CANARY }),
    remote: {
      type: 'streamable-http',
      url: `${http.origin}/mcp`,
      requestInit: { headers: { Authorization: `Bearer ${HEADER_CANARY}` } },
    },
  };
  mcp = new MCPConfiguration({ servers, pool });
});

afterEach(() => {
  expect(unhandled).toEqual([]);
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await pool?.close();
  await stopAll();
});

const target = (name: 'local' | 'remote') => ({ serverName: name, config: servers[name] });

describe('the connection pool', () => {
  it('reuses one connection across sequential and concurrent calls without handlers', async () => {
    await mcp.callServerTool('remote', 'echo', { text: 'warm' });
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => mcp.callServerTool('remote', 'echo', { text: `n${i}` })),
    );
    expect(results.map((r) => r.kind === 'ok' && r.output)).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
    expect(pool.stats(target('remote'))).toMatchObject({ connections: 1, leased: 0 });
  });

  it('closes idle connections after idleTimeoutMs', async () => {
    const short = new McpConnectionPool({ idleTimeoutMs: 150 });
    const config = stdioFixture();
    try {
      const t = { serverName: 'idle', config };
      await short.use(t, {}, async (connection) => {
        await connection.listTools({ timeoutMs: 5000, maxTools: 10 });
      });
      expect(short.stats(t).connections).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(short.stats(t).connections).toBe(0);
    } finally {
      await short.close();
    }
  });

  it('close() ends every connection and refuses further use with a classified error', async () => {
    const closing = new McpConnectionPool();
    const t = { serverName: 'closing', config: stdioFixture() };
    await closing.use(t, {}, async () => {});
    await closing.close();
    expect(closing.stats(t).connections).toBe(0);
    const error = await closing.acquire(t).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'pool-closed' });
    expect(classifyMcpError(error)).toMatchObject({ type: 'Mcp.PoolClosed', nonRetryable: false });
  });
});

describe('back-off and saturation', () => {
  it('a failed connect is refused for the back-off window, then tried again with a longer window', async () => {
    const backoff = new McpConnectionPool({ backoff: { initialMs: 200, maxMs: 1000 }, connectTimeoutMs: 2000 });
    const down = { serverName: 'down', config: { type: 'streamable-http' as const, url: 'http://127.0.0.1:9/mcp' } };
    try {
      const first = await backoff.acquire(down).catch((e: unknown) => e);
      expect(first).toMatchObject({ reason: 'connect-failed', retryAfterMs: 200 });
      const second = await backoff.acquire(down).catch((e: unknown) => e);
      expect(second).toMatchObject({
        reason: 'connect-failed',
        message: expect.stringMatching(/not retrying for another/),
      });
      expect(backoff.stats(down).failures).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const third = await backoff.acquire(down).catch((e: unknown) => e);
      expect(third).toMatchObject({ reason: 'connect-failed', retryAfterMs: 400 });
      expect(backoff.stats(down).failures).toBe(2);
    } finally {
      await backoff.close();
    }
  });

  it('when every connection is held, a call waits up to acquireTimeoutMs and then fails saying what to raise', async () => {
    const small = new McpConnectionPool({ maxConnectionsPerServer: 1, acquireTimeoutMs: 300 });
    const t = { serverName: 'small', config: stdioFixture() };
    const small$ = new MCPConfiguration({ servers: { small: t.config }, pool: small });
    const controller = new AbortController();
    try {
      const hanging = small$
        .callServerTool('small', 'hang', {}, { signal: controller.signal, onElicitation: () => ({ action: 'cancel' }) })
        .catch((e: unknown) => e);
      await expect.poll(() => small.stats(t).leased, { timeout: 10_000 }).toBe(1);
      const error = await small$.callServerTool('small', 'echo', { text: 'x' }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        reason: 'timeout',
        message: expect.stringMatching(/raise maxConnectionsPerServer/),
      });
      controller.abort(new Error('done'));
      await hanging;
    } finally {
      await small.close();
    }
  });
});

describe('cancellation and timeouts', () => {
  it('an aborted signal cancels the request: the server sees notifications/cancelled, the reason is rethrown', async () => {
    const count = async (): Promise<number> => {
      const outcome = await mcp.callServerTool('local', 'cancellations', {});
      return outcome.kind === 'ok' ? Number(outcome.output) : -1;
    };
    const before = await count();
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    setTimeout(() => controller.abort(reason), 200);
    await expect(mcp.callServerTool('local', 'hang', {}, { signal: controller.signal })).rejects.toBe(reason);
    await expect.poll(count, { timeout: 10_000 }).toBe(before + 1);
  });

  it('a call that outlives timeoutMs is cancelled and fails as a classified timeout', async () => {
    const started = Date.now();
    const error = await mcp.callServerTool('remote', 'hang', {}, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toMatchObject({
      name: 'McpServerError',
      reason: 'timeout',
      retrySafe: false,
      message: expect.stringMatching(/did not answer within 300 ms/),
    });
    expect(classifyMcpError(error)).toMatchObject({ type: 'Mcp.Timeout', nonRetryable: true });
  });

  it('the timeout clock stops while an elicitation waits for a person', async () => {
    const outcome = await mcp.callServerTool(
      'remote',
      'elicit',
      {},
      {
        timeoutMs: 400,
        onElicitation: async () => {
          await new Promise((resolve) => setTimeout(resolve, 1200));
          return { action: 'accept', content: { name: 'Patient', age: 40 } };
        },
      },
    );
    expect(outcome).toEqual({
      v: 1,
      kind: 'ok',
      output: JSON.stringify({ action: 'accept', content: { name: 'Patient', age: 40 } }),
    });
  });
});

describe('elicitation', () => {
  it('concurrent calls each get their own handler’s answer (each on its own connection)', async () => {
    const asked: McpElicitationRequest[] = [];
    const answer = (name: string) => async (request: McpElicitationRequest) => {
      asked.push(request);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { action: 'accept' as const, content: { name } };
    };
    const [a, b, c] = await Promise.all([
      mcp.callServerTool('remote', 'elicit', { message: 'A?' }, { onElicitation: answer('alice') }),
      mcp.callServerTool('remote', 'elicit', { message: 'B?' }, { onElicitation: answer('bob') }),
      mcp.callServerTool('remote', 'elicit', { message: 'C?' }, { onElicitation: answer('carol') }),
    ]);
    expect([a, b, c].map((o) => (o.kind === 'ok' ? JSON.parse(o.output as string).content.name : o))).toEqual([
      'alice',
      'bob',
      'carol',
    ]);
    expect(asked.map((r) => r.message).sort()).toEqual(['A?', 'B?', 'C?']);
    // Each call held a connection to itself while it waited for its answer.
    expect(pool.stats(target('remote')).connections).toBeGreaterThanOrEqual(3);
    expect(asked[0]).toMatchObject({ serverName: 'remote', mode: 'form', requestedSchema: { type: 'object' } });
  });

  it('an answer that does not match the requested schema is replaced by cancel, and logged', async () => {
    const outcome = await mcp.callServerTool(
      'local',
      'elicit',
      {},
      { onElicitation: () => ({ action: 'accept', content: { age: 'old' } as never }) },
    );
    expect(outcome).toMatchObject({ kind: 'ok', output: JSON.stringify({ action: 'cancel' }) });
    expect(messagesAt(logs, 'error').join('\n')).toMatch(/Elicitation answer for MCP server 'local' rejected/);
  });

  it('without a handler the server gets cancel; the client’s bridge answers when it has a handler', async () => {
    expect(await mcp.callServerTool('local', 'elicit', {})).toMatchObject({
      output: JSON.stringify({ action: 'cancel' }),
    });
    const client = (await mcp.getClient('local'))!;
    client.elicitation.once(() => ({ action: 'decline' }));
    expect(await client.callTool({ name: 'elicit' })).toMatchObject({ output: JSON.stringify({ action: 'decline' }) });
  });
});

describe('progress and list changes', () => {
  it('reports server progress notifications of the call', async () => {
    const seen: McpProgress[] = [];
    const outcome = await mcp.callServerTool(
      'remote',
      'progress',
      { steps: 3, delayMs: 10 },
      { onProgress: (p) => seen.push(p) },
    );
    expect(outcome).toMatchObject({ kind: 'ok', output: 'done after 3 steps' });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  it('tools/list_changed marks the recorded listing stale; a new listing has a new version', async () => {
    const changes: string[] = [];
    const stop = pool.onListChanged((server) => changes.push(server));
    try {
      const before = await mcp.listServerTools('remote');
      expect(mcp.isListingStale('remote', before.version)).toBe(false);
      await mcp.callServerTool('remote', 'add-tool', { name: 'fresh' });
      await expect.poll(() => mcp.isListingStale('remote', before.version), { timeout: 10_000 }).toBe(true);
      expect(changes).toContain('remote');
      // The added tool lives in the session that added it; with one shared connection the next listing sees it.
      const after = await mcp.listServerTools('remote');
      expect(after.version).not.toBe(before.version);
      expect(after.tools.map((t) => t.name)).toContain('fresh');
      expect(mcp.isListingStale('remote', after.version)).toBe(false);
      expect(mcp.isListingStale('remote', before.version)).toBe(true);
      await mcp.callServerTool('remote', 'remove-tool', { name: 'fresh' });
    } finally {
      stop();
    }
  });
});

describe('size bounds on what servers send', () => {
  it('a result over maxResultBytes fails as result-too-large, naming the tool and the limit', async () => {
    const error = await mcp.callServerTool('remote', 'big', { bytes: 600_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      reason: 'result-too-large',
      message: expect.stringMatching(/MCP tool 'big' on server 'remote' returned \d+ bytes, over the limit of 524288/),
    });
    expect(await mcp.callServerTool('remote', 'big', { bytes: 100 }, { maxResultBytes: 1000 })).toMatchObject({
      kind: 'ok',
    });
  });

  it('a message over 8 MiB closes the connection (stdio and HTTP) instead of being buffered; the next call reconnects', async () => {
    for (const server of ['local', 'remote'] as const) {
      const error = await mcp
        .callServerTool(server, 'big', { bytes: 9 * 1024 * 1024 }, { timeoutMs: 20_000 })
        .catch((e: unknown) => e);
      expect(error, server).toMatchObject({
        name: 'McpServerError',
        reason: 'result-too-large',
        message: expect.stringMatching(/sent a message of more than 8388608 bytes; the connection was closed/),
      });
      expect(await mcp.callServerTool(server, 'echo', { text: 'still here' })).toMatchObject({ output: 'still here' });
    }
  });
});

describe('a server that dies mid-call', () => {
  it('stdio: the call fails at once as connection-lost (not retry-safe); the next call gets a fresh process', async () => {
    const error = await mcp.callServerTool('local', 'exit-now', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'McpServerError',
      reason: 'connection-lost',
      requestSent: true,
      retrySafe: false,
    });
    expect((error as Error).message).toMatch(
      /may have run the tool: retrying on a fresh connection may repeat its effect/,
    );
    expect(classifyMcpError(error)).toMatchObject({ type: 'Mcp.ConnectionLost', nonRetryable: true });
    expect(await mcp.callServerTool('local', 'echo', { text: 'back' })).toMatchObject({ output: 'back' });
  });

  it('streamable HTTP: a killed server fails the waiting call quickly, as retry-safe for an idempotent tool', async () => {
    const server = await startHttpFixture('streamable-http');
    const dying = new MCPConfiguration({
      servers: { web: { type: 'streamable-http', url: `${server.origin}/mcp` } },
      pool,
    });
    await dying.callServerTool('web', 'echo', { text: 'up' });
    const pending = dying
      .callServerTool('web', 'hang', {}, { timeoutMs: 30_000, idempotent: true })
      .catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await server.kill();
    const error = await pending;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(error).toMatchObject({ name: 'McpServerError', reason: 'connection-lost', retrySafe: true });
    expect(classifyMcpError(error)).toMatchObject({ type: 'Mcp.ConnectionLost', nonRetryable: false });
  });
});

describe('secrets', () => {
  it('never appear in outcomes, listings, progress, elicitation requests or error messages', async () => {
    const env = await mcp.callServerTool('local', 'env', {});
    expect(JSON.stringify(env)).not.toContain(CANARY);
    expect(JSON.stringify(env)).toContain(REDACTED);
    const listing = await mcp.listServerTools('local');
    expect(JSON.stringify(listing)).not.toContain(CANARY);
    expect(listing.tools.find((t) => t.name === 'leaky')?.description).toBe(`token is ${REDACTED}`);
    expect(JSON.stringify(await mcp.getRawToolsets())).not.toContain(HEADER_CANARY);

    // A wrong token in the URL and header: the connect error must not echo either.
    const wrong = new MCPConfiguration({
      servers: {
        bad: {
          type: 'streamable-http',
          url: `${http.origin}/mcp?access_token=${CANARY}`,
          requestInit: { headers: { Authorization: `Bearer ${CANARY}x` } },
        },
      },
      poolOptions: { connectTimeoutMs: 5000 },
    });
    const error = await wrong.listServerTools('bad').catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'connect-failed' });
    expect(JSON.stringify({ message: (error as Error).message, ...(error as object) })).not.toContain(CANARY);
    const { failures } = await wrong.loadTools();
    expect(JSON.stringify(failures)).not.toContain(CANARY);
    await wrong.disconnect();
    for (const entry of logs) expect(`${entry.message} ${JSON.stringify(entry.meta ?? '')}`).not.toContain(CANARY);
  });
});
