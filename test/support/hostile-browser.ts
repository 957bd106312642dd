// Hostile and careless browsers, for the web tests: a raw keep-alive HTTP/1.1 connection (the requests a browser
// sends on one socket, and ones no fetch client lets you send: a request-target of `//evil.example/…`, a body
// announced and never sent), a client that opens an event stream and never reads it, cross-site requests as a page
// on another site makes them, and a reconnect storm. Real sockets against a real server: nothing here is mocked.
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** One HTTP response read off a raw connection. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; a repeated header (Set-Cookie) keeps every value. */
  headers: Map<string, string[]>;
  body: string;
  /** Milliseconds from the request's last byte to the response's last byte. */
  ms: number;
}

/** What one request on a raw connection sends. */
export interface RawRequest {
  method: string;
  /** The request-target, sent as is (`/api/chat`, `//evil.example/api/chat`). */
  target: string;
  headers?: Record<string, string>;
  /** The body; `content-length` is set from it unless `headers` sets one. */
  body?: string | Buffer;
}

/**
 * An HTTP/1.1 connection held open across requests, as a browser holds one. It reads what the server sends as it
 * comes; `closed` resolves when the server closes the connection.
 */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(
    readonly socket: Socket,
    readonly host: string,
  ) {
    socket.on('data', (data: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      this.waiting?.();
    });
    this.closed = new Promise((resolve) => {
      const end = () => {
        this.ended = true;
        this.waiting?.();
        resolve();
      };
      socket.on('close', end);
      socket.on('end', end);
      socket.on('error', () => undefined);
    });
  }

  /** A connection to `url`'s host and port. */
  static async open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawConnection(socket, `${hostname}:${port}`);
  }

  /** Sends a request (its head, and its body when given) without waiting for the answer. */
  send(request: RawRequest): void {
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const headers: Record<string, string> = { host: this.host, ...request.headers };
    if (body && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) {
      headers['content-length'] = String(body.byteLength);
    }
    const head = [
      `${request.method} ${request.target} HTTP/1.1`,
      ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`),
    ];
    this.socket.write(`${head.join('\r\n')}\r\n\r\n`);
    if (body) this.socket.write(body);
  }

  /** Sends a request and reads its whole answer; rejects after `timeoutMs`, or when the connection closes first. */
  async request(request: RawRequest, timeoutMs = 5_000): Promise<RawResponse> {
    this.send(request);
    return await this.response(timeoutMs);
  }

  /** Reads the next whole response (Content-Length or chunked); rejects on timeout or a closed connection. */
  async response(timeoutMs = 5_000): Promise<RawResponse> {
    const started = performance.now();
    const deadline = started + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.buffer);
      if (parsed) {
        this.buffer = this.buffer.subarray(parsed.length);
        return { ...parsed.response, ms: performance.now() - started };
      }
      if (this.ended) throw new Error(`the server closed the connection without a whole response`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no whole response within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          this.waiting = undefined;
          resolve();
        };
      });
    }
  }

  /** Everything received and not yet taken by {@link response}, as text (an event stream's body, chunk sizes and all). */
  get received(): string {
    return this.buffer.toString('utf8');
  }

  close(): void {
    this.socket.destroy();
  }
}

function parseResponse(buffer: Buffer): { response: Omit<RawResponse, 'ms'>; length: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const [statusLine, ...lines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const at = line.indexOf(':');
    const name = line.slice(0, at).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(at + 1).trim()]);
  }
  let at = headEnd + 4;
  if (headers.get('transfer-encoding')?.[0] === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', at);
      if (lineEnd === -1) return undefined;
      const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1'), 16);
      if (buffer.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
      if (size === 0) break;
    }
    return { response: { status, headers, body: Buffer.concat(parts).toString('utf8') }, length: at };
  }
  const length = Number(headers.get('content-length')?.[0] ?? 0);
  if (buffer.length < at + length) return undefined;
  return {
    response: { status, headers, body: buffer.subarray(at, at + length).toString('utf8') },
    length: at + length,
  };
}

/**
 * A client that opens an event stream and never reads it: the request is sent, then the socket is paused, so the
 * server's writes fill the kernel's buffers and then its own. `close()` hangs up.
 */
export async function neverReadingClient(url: string, request: RawRequest): Promise<RawConnection> {
  const connection = await RawConnection.open(url);
  connection.socket.pause();
  connection.send(request);
  return connection;
}

/** A site the tests treat as the attacker's. */
export const EVIL_ORIGIN = 'https://evil.example';

/**
 * The ways a page on another site gets a browser to send a state-changing request with the user's credentials: an
 * `Origin` header of that site, no `Origin` but cookies marked `Sec-Fetch-Site: cross-site` (older browsers, some
 * form posts), and a request-target of `//evil.example/…` with the attacker's origin, which a handler that parses the
 * target as a URL takes for its own.
 */
export const CROSS_SITE_VARIANTS = ['origin', 'cookies', 'target'] as const;
export type CrossSiteVariant = (typeof CROSS_SITE_VARIANTS)[number];

/**
 * Sends `method path` with `headers` and `body` to `url`'s server the cross-site way `variant` names, on a raw
 * connection (a fetch client cannot send the `//host` target), and reads the answer.
 */
export async function crossSiteRequest(
  url: string,
  variant: CrossSiteVariant,
  request: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const connection = await RawConnection.open(url);
  try {
    const headers = { ...request.headers };
    let target = request.path;
    if (variant === 'origin') headers.origin = EVIL_ORIGIN;
    if (variant === 'cookies') Object.assign(headers, { cookie: 'session=1', 'sec-fetch-site': 'cross-site' });
    if (variant === 'target') {
      target = `//${new URL(EVIL_ORIGIN).host}${request.path}`;
      headers.origin = `http://${new URL(EVIL_ORIGIN).host}`;
    }
    return await connection.request({
      method: request.method,
      target,
      headers: { connection: 'close', ...headers },
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
  } finally {
    connection.close();
  }
}

/**
 * A reconnect storm: `count` connections made `concurrency` at a time, each by `connectOnce` (which opens a stream
 * and drops it, as a reload loop or a flaky network does). Resolves with how each one ended.
 */
export async function reconnectStorm<T>(
  count: number,
  concurrency: number,
  connectOnce: (index: number) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = [];
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const index = next++;
      results[index] = await connectOnce(index).then(
        (value) => ({ status: 'fulfilled', value }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
    }
  });
  await Promise.all(lanes);
  return results;
}

/** A forced collection (V8's `gc`, exposed at run time), so memory figures count what is held, not what waits. */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Bytes this process holds now in its heap and in buffers (a server's queued writes are buffers), after a collection. */
export function heldBytes(): number {
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}
