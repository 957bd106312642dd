// The handler's event streams under clients that read slowly or not at all, over real HTTP (`toNodeListener`, raw
// sockets that stop reading): the stream is produced no faster than the client reads, what waits for a client is one
// bounded buffer, a client that reads nothing for `slowStreamMs` gets a clear last event (or, reading nothing of that
// either, is disconnected), and each stream says when it ended. The producer writes a large turn's worth of deltas as
// fast as the stream lets it: a run would, from its shared subscription, when its watchers fall behind.
import type { UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { sseResponse, UI_MESSAGE_STREAM_HEADERS, type SseFraming } from '../../src/http/sse.js';
import { heldBytes, neverReadingClient, type RawConnection } from '../support/hostile-browser.js';
import { serveHandler, type TestHttpServer } from '../support/http-chat.js';

const DELTA = { type: 'text-delta', id: 't', delta: 'lorem ipsum '.repeat(1_333) } satisfies UIMessageChunk;
const FRAMING: SseFraming<UIMessageChunk> = {
  headers: UI_MESSAGE_STREAM_HEADERS,
  done: '[DONE]',
  broken: { type: 'error', errorText: 'broken' },
  slow: { type: 'error', errorText: 'Http.SlowReader: too slow' },
};

/** Serves an event stream of `totalBytes` of deltas, written as fast as the stream takes them. */
async function serveStream(
  totalBytes: number,
  bounds: { bufferBytes: number; slowStreamMs: number },
): Promise<{ server: TestHttpServer; produced: () => number; closed: () => number }> {
  let produced = 0;
  let closed = 0;
  const server = await serveHandler(async (request) =>
    sseResponse<UIMessageChunk>(
      async (writer, signal) => {
        writer.write({ type: 'start' });
        for (let sent = 0; sent < totalBytes && !signal.aborted; sent += DELTA.delta.length) {
          writer.write(DELTA);
          produced += DELTA.delta.length;
          await writer.ready();
        }
        writer.write({ type: 'finish' });
      },
      FRAMING,
      {
        ...bounds,
        keepAliveMs: 15_000,
        signal: request.signal,
        onError: () => undefined,
        onClose: () => closed++,
      },
    ),
  );
  return { server, produced: () => produced, closed: () => closed };
}

const open: RawConnection[] = [];
let servers: TestHttpServer[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) client.close();
  for (const server of servers) await server.close();
  servers = [];
});

const watch = { method: 'GET', target: '/stream' };

describe('event streams under clients that do not read', () => {
  it('holds one bounded buffer per client that never reads, not the stream', async () => {
    const { server, produced } = await serveStream(32 * 1024 * 1024, { bufferBytes: 64 * 1024, slowStreamMs: 60_000 });
    servers.push(server);
    const clients = await Promise.all(Array.from({ length: 10 }, () => neverReadingClient(server.url, watch)));
    open.push(...clients);
    // Until the kernel's buffers are full and the producers wait.
    let last = -1;
    await expect
      .poll(
        () => {
          const now = produced();
          const settled = now === last;
          last = now;
          return settled;
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(true);
    const holding = heldBytes();
    for (const client of clients) client.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const held = holding - heldBytes();
    console.log(
      `10 never-reading clients of a 32 MB stream: ${Math.round(produced() / 1e5) / 10} MB produced, ` +
        `${Math.round(held / 1e5) / 10} MB held by the server`,
    );
    // What the kernel took, plus 64 KiB and the event being written per client; never the 32 MB each.
    expect(produced()).toBeLessThan(10 * 12 * 1024 * 1024);
    expect(held).toBeLessThan(10 * 512 * 1024);
  });

  it('sends a client that read nothing for slowStreamMs a last event, and drops one that reads nothing of it', async () => {
    const { server, closed } = await serveStream(64 * 1024 * 1024, { bufferBytes: 64 * 1024, slowStreamMs: 2_000 });
    servers.push(server);
    const never = await neverReadingClient(server.url, watch);
    const slow = await neverReadingClient(server.url, watch);
    open.push(never, slow);
    // The slow one comes back after 3 s: after its last event was written, before it would be dropped.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    slow.socket.resume();
    await slow.closed;
    expect(slow.received).toContain('Http.SlowReader: too slow');
    expect(slow.received.indexOf('data: [DONE]')).toBeGreaterThan(slow.received.indexOf('Http.SlowReader'));
    // The client that never reads cannot see its connection go (it reads nothing), the server can: it has none left.
    const connections = () =>
      new Promise<number>((resolve, reject) =>
        server.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    await expect.poll(connections, { timeout: 8_000 }).toBe(0);
    expect(closed()).toBe(2);
  });

  it('streams everything to a client that reads', async () => {
    const { server, closed } = await serveStream(16 * 1024 * 1024, { bufferBytes: 64 * 1024, slowStreamMs: 2_000 });
    servers.push(server);
    const response = await fetch(`${server.url}/stream`);
    const text = await response.text();
    expect(text.length).toBeGreaterThan(16 * 1024 * 1024);
    expect(text).not.toContain('SlowReader');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(closed()).toBe(1);
  });
});
