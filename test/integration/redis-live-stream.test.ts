// The Redis live stream transport against a real redis-server: dense offsets in one order across concurrent
// publishers, blocking reads, forged and replayed XADDs dropped by every reader, retention with an explicit gap, and
// Redis going away and coming back without a publish hanging.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryMac } from '../../src/live/entry-mac.js';
import type { LiveItem, LiveReader, LiveRunRef } from '../../src/live/live-stream.js';
import { RedisLiveStream, liveStreamKeys } from '../../src/live/redis-live-stream.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { createTestCertificates } from '../support/test-certificates.js';

const KEY = 'test-stream-key-0123456789abcdef';
const PREFIX = 'durable-agent:live';

let server: TestRedis;
let raw: Redis;
const transports: RedisLiveStream[] = [];

beforeAll(async () => {
  server = await startRedis();
  raw = new Redis(server.url);
});

afterAll(async () => {
  for (const transport of transports) await transport.close();
  raw?.disconnect();
  await server?.close();
});

function transport(options: Partial<ConstructorParameters<typeof RedisLiveStream>[0]> = {}): RedisLiveStream {
  const made = new RedisLiveStream({ url: server.url, key: KEY, ...options });
  transports.push(made);
  return made;
}

function newRun(): LiveRunRef {
  return { workflowId: `run-${randomUUID()}`, firstRunId: randomUUID() };
}

/** Reads until `count` items came (or `ms` passed); returns them and what was rejected on the way. */
async function readItems(
  reader: LiveReader,
  count: number,
  ms = 5_000,
): Promise<{ items: LiveItem[]; rejected: number }> {
  const items: LiveItem[] = [];
  let rejected = 0;
  const deadline = Date.now() + ms;
  while (items.length < count && Date.now() < deadline) {
    const read = await reader.read({ blockMs: Math.max(1, deadline - Date.now()) });
    items.push(...read.items);
    rejected += read.rejected;
  }
  return { items, rejected };
}

describe('the Redis live stream', () => {
  it('gives dense offsets in one order to concurrent publishers, and readers read them from any offset', async () => {
    const live = transport();
    const other = transport();
    const run = newRun();
    await Promise.all([
      (async () => {
        for (let i = 0; i < 20; i++) await live.publish(run, 1, [{ topic: 'deltas', data: `a${i}` }]);
      })(),
      (async () => {
        for (let i = 0; i < 20; i++) await other.publish(run, 2, [{ topic: 'progress', data: `b${i}` }]);
      })(),
    ]);
    const reader = live.reader(run, 0);
    const { items, rejected } = await readItems(reader, 40);
    reader.close();
    expect(rejected).toBe(0);
    expect(items.map((item) => item.offset)).toEqual([...Array(40).keys()]);
    // Each publisher's entries in its own order.
    expect(items.filter((item) => item.topic === 'deltas').map((item) => item.data)).toEqual(
      [...Array(20).keys()].map((i) => `a${i}`),
    );
    const from = transport().reader(run, 33);
    const rest = await from.read();
    from.close();
    expect(rest.items.map((item) => item.offset)).toEqual([33, 34, 35, 36, 37, 38, 39]);
  });

  it('wakes a blocked reader when an item is published', async () => {
    const live = transport();
    const run = newRun();
    const reader = live.reader(run, 0);
    const started = Date.now();
    const read = reader.read({ blockMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await live.publish(run, 1, [{ topic: 'events', data: 'first' }]);
    const result = await read;
    reader.close();
    expect(result.items).toEqual([{ topic: 'events', data: 'first', offset: 0 }]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('drops forged entries (no code, a wrong code, another key, another run) and replayed ones', async () => {
    const live = transport();
    const run = newRun();
    const { stream } = liveStreamKeys(PREFIX, run);
    await live.publish(run, 1, [
      { topic: 'deltas', data: 'genuine-0' },
      { topic: 'deltas', data: 'genuine-1' },
    ]);
    const genuine = (await raw.xrange(stream, '-', '+')) as [string, string[]][];
    expect(genuine).toHaveLength(2);
    // Anyone who reaches Redis can XADD: without the key, nothing they add is shown.
    await raw.xadd(stream, '*', 'o', '2', 't', 'deltas', 'd', 'INJECTED no code', 'a', '1');
    await raw.xadd(stream, '*', 'o', '2', 't', 'deltas', 'd', 'INJECTED bad code', 'a', '1', 'm', 'AAAA');
    const otherKey = entryMac(
      new TextEncoder().encode('another-key-0123456789abcdef'),
      run,
      1,
      2,
      'deltas',
      'INJECTED',
    );
    await raw.xadd(stream, '*', 'o', '2', 't', 'deltas', 'd', 'INJECTED', 'a', '1', 'm', otherKey);
    // A genuine entry of another run, copied here: its code binds the run.
    const elsewhere = newRun();
    const copied = entryMac(new TextEncoder().encode(KEY), elsewhere, 1, 2, 'deltas', 'INJECTED other run');
    await raw.xadd(stream, '*', 'o', '2', 't', 'deltas', 'd', 'INJECTED other run', 'a', '1', 'm', copied);
    // A genuine entry's code with its offset changed, and with its attempt changed.
    const fields = genuine[1]![1];
    const field = (name: string): string => fields[fields.indexOf(name) + 1]!;
    await raw.xadd(stream, '*', 'o', '2', 't', 'deltas', 'd', field('d'), 'a', '1', 'm', field('m'));
    await raw.xadd(stream, '*', 'o', '1', 't', 'deltas', 'd', field('d'), 'a', '2', 'm', field('m'));
    // Genuine entries replayed as they are.
    await raw.xadd(stream, '*', ...genuine[0]![1]);
    await raw.xadd(stream, '*', ...genuine[1]![1]);
    await live.publish(run, 1, [{ topic: 'deltas', data: 'genuine-2' }]);

    const fresh = transport().reader(run, 0);
    const { items, rejected } = await readItems(fresh, 3);
    fresh.close();
    expect(items.map((item) => item.data)).toEqual(['genuine-0', 'genuine-1', 'genuine-2']);
    expect(items.map((item) => item.offset)).toEqual([0, 1, 2]);
    expect(rejected).toBe(8);

    // A reader that is live when the replay comes drops it too.
    const watching = live.reader(run, 3);
    const caughtUp = await watching.read();
    expect(caughtUp).toMatchObject({ items: [], next: 3, rejected: 6 });
    const waiting = watching.read({ blockMs: 1_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await raw.xadd(stream, '*', ...genuine[1]![1]);
    const replayed = await waiting;
    watching.close();
    expect(replayed.items).toEqual([]);
    expect(replayed.rejected).toBe(1);
  });

  it('drops a genuine entry copied with its offset or attempt spelled otherwise than plain decimal digits', async () => {
    const live = transport();
    const run = newRun();
    const { stream } = liveStreamKeys(PREFIX, run);
    await live.publish(run, 1, [
      { topic: 'deltas', data: 'genuine-0' },
      { topic: 'deltas', data: 'genuine-1' },
      { topic: 'deltas', data: 'genuine-2' },
    ]);
    const genuine = (await raw.xrange(stream, '-', '+')) as [string, string[]][];
    expect(genuine).toHaveLength(3);
    const fields = genuine[2]![1];
    const respelled = (name: 'o' | 'a', value: string): string[] => {
      const copy = [...fields];
      copy[copy.indexOf(name) + 1] = value;
      return copy;
    };
    // Entry 2's code, its offset or attempt written as Number() reads the same integer, put before everything: read
    // as offset 2 it would stand for the entry, say 0 and 1 were trimmed, and leave them out as replays.
    await raw.del(stream);
    const offsets = ['0x2', '2.0', '2e0', '+2', ' 2', '02', '0b10'];
    const attempts = ['1.0', '0x1', '01', ' 1', '1e0', ''];
    for (const o of offsets) await raw.xadd(stream, '*', ...respelled('o', o));
    for (const a of attempts) await raw.xadd(stream, '*', ...respelled('a', a));
    // An empty offset: Number('') is 0, and entry 0's code over offset 0.
    const first = [...genuine[0]![1]];
    first[first.indexOf('o') + 1] = '';
    await raw.xadd(stream, '*', ...first);
    for (const [, genuineFields] of genuine) await raw.xadd(stream, '*', ...genuineFields);

    const reader = transport().reader(run, 0);
    const read = await reader.read();
    reader.close();
    expect(read.gap).toBeUndefined();
    expect(read.items.map((item) => [item.offset, item.data])).toEqual([
      [0, 'genuine-0'],
      [1, 'genuine-1'],
      [2, 'genuine-2'],
    ]);
    expect(read.rejected).toBe(offsets.length + attempts.length + 1);
  });

  it('keeps at most about maxLen entries and a TTL; a reader behind the trim gets an explicit gap', async () => {
    const live = transport({ maxLen: 100, ttlSeconds: 600 });
    const run = newRun();
    for (let i = 0; i < 30; i++) {
      await live.publish(
        run,
        1,
        [...Array(10).keys()].map((j) => ({ topic: 'deltas', data: `${i * 10 + j}` })),
      );
    }
    const { stream, next } = liveStreamKeys(PREFIX, run);
    const length = await raw.xlen(stream);
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(300);
    expect(await raw.ttl(stream)).toBeGreaterThan(590);
    expect(await raw.ttl(next)).toBeGreaterThan(590);
    const reader = live.reader(run, 0);
    const first = await reader.read();
    expect(first.gap).toEqual({ missedFrom: 0, offset: first.items[0]!.offset });
    expect(first.items[0]!.offset).toBe(300 - length);
    const rest = await readItems(reader, 300 - first.next, 2_000);
    reader.close();
    expect([...first.items, ...rest.items].map((item) => item.offset)).toEqual(
      [...Array(length).keys()].map((i) => 300 - length + i),
    );
  });

  it('fails a publish fast while Redis is down, counts it, and publishes again once Redis is back', async () => {
    const own = await startRedis();
    const live = new RedisLiveStream({ url: own.url, key: KEY });
    try {
      const run = newRun();
      await live.publish(run, 1, [{ topic: 'events', data: 'before' }]);
      await own.stop();
      const started = Date.now();
      await expect(live.publish(run, 1, [{ topic: 'events', data: 'lost' }])).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(live.failures.publish).toBe(1);
      const reader = live.reader(run, 0);
      await expect(reader.read()).rejects.toThrow();
      expect(live.failures.read).toBe(1);
      await own.start();
      // Reconnects in the background: a publish soon succeeds (nothing persisted: the stream starts over).
      let published = false;
      for (let i = 0; i < 50 && !published; i++) {
        published = await live.publish(run, 1, [{ topic: 'events', data: 'after' }]).then(
          () => true,
          async () => {
            await new Promise((resolve) => setTimeout(resolve, 100));
            return false;
          },
        );
      }
      expect(published).toBe(true);
      const after = live.reader(run, 0);
      const { items } = await readItems(after, 1, 2_000);
      after.close();
      reader.close();
      expect(items.map((item) => item.data)).toEqual(['after']);
    } finally {
      await live.close();
      await own.close();
    }
  });

  it('never keeps a process alive: one that used it exits without closing it, while Redis is down too', async () => {
    const own = await startRedis();
    const dir = mkdtempSync(join(tmpdir(), 'durable-agent-live-exit-'));
    const script = join(dir, 'uses-live-stream.mts');
    const source = fileURLToPath(new URL('../../src/live/redis-live-stream.ts', import.meta.url));
    writeFileSync(
      script,
      [
        `import { RedisLiveStream } from ${JSON.stringify(source)};`,
        `const live = new RedisLiveStream({ url: ${JSON.stringify(own.url)}, key: ${JSON.stringify(KEY)} });`,
        "const run = { workflowId: 'w', firstRunId: 'r' };",
        "await live.publish(run, 1, [{ topic: 'events', data: 'e30=' }]);",
        'const reader = live.reader(run, 0);',
        'console.log((await reader.read({ blockMs: 100 })).items.length);',
        'reader.close();',
        // Redis goes away: the publish fails, and nothing reconnects in the background.
        "process.send?.('stop');",
        'await new Promise((resolve) => process.once("message", resolve));',
        "await live.publish(run, 1, [{ topic: 'events', data: 'e30=' }]).catch(() => console.log('failed'));",
      ].join('\n'),
    );
    try {
      const child = fork(script, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
      let output = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.once('message', () => void own.stop().then(() => child.send('stopped')));
      const started = Date.now();
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
      expect(output.split('\n').filter(Boolean)).toEqual(['1', 'failed']);
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('speaks TLS with a password (rediss://), and refuses an untrusted server or a wrong password', async () => {
    const certs = await createTestCertificates();
    const secure = await startRedis({
      tls: { certPath: certs.server.certPath, keyPath: certs.server.keyPath, caPath: certs.ca.certPath },
      password: 'p@ss word',
    });
    const opened: RedisLiveStream[] = [];
    const open = (url: string, ca?: string) => {
      const made = new RedisLiveStream({ url, key: KEY, ...(ca ? { tls: { ca } } : {}) });
      opened.push(made);
      return made;
    };
    try {
      expect(secure.url).toMatch(/^rediss:\/\/:p%40ss%20word@localhost:\d+$/);
      const run = newRun();
      const live = open(secure.url, certs.ca.cert);
      await live.publish(run, 1, [{ topic: 'events', data: 'over-tls' }]);
      const reader = live.reader(run, 0);
      expect((await reader.read()).items).toEqual([{ topic: 'events', data: 'over-tls', offset: 0 }]);
      reader.close();
      // A server whose certificate nobody here trusts, and a wrong password: no publish goes through.
      await expect(open(secure.url).publish(run, 1, [{ topic: 'events', data: 'x' }])).rejects.toThrow();
      const wrong = secure.url.replace('p%40ss%20word', 'guess');
      await expect(open(wrong, certs.ca.cert).publish(run, 1, [{ topic: 'events', data: 'x' }])).rejects.toThrow();
      // Plain text to the TLS port: refused too.
      const plain = secure.url.replace('rediss:', 'redis:');
      await expect(open(plain).publish(run, 1, [{ topic: 'events', data: 'x' }])).rejects.toThrow();
    } finally {
      for (const made of opened) await made.close();
      await secure.close();
      certs.remove();
    }
  });

  it('refuses a short key and a URL that is not redis:// or rediss://', () => {
    expect(() => new RedisLiveStream({ url: server.url, key: 'short' })).toThrow(/at least 16 bytes/);
    expect(() => new RedisLiveStream({ url: 'http://localhost:6379', key: KEY })).toThrow(/redis:\/\/ or rediss:\/\//);
  });
});
