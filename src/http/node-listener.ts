import type { IncomingMessage, ServerResponse } from 'node:http';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal, refusalResponse } from './http-refusal.js';

/**
 * Most bytes of an unread request body the listener reads and throws away after an early answer (a refused POST), so
 * the keep-alive connection serves the client's next request. A larger or unbounded body closes the connection.
 */
export const DRAIN_BODY_BYTES = 64 * 1024;
/** How long that drain may take before the connection is closed. */
const DRAIN_MS = 5_000;

/**
 * Serves a fetch handler from Node's `http` server: `createServer(toNodeListener(handler))`. The request's signal
 * aborts when the client goes away, so a disconnected page only stops its stream (the run goes on). The response is
 * written as fast as the client reads it (a full socket pauses the handler's stream), every `Set-Cookie` is kept, and
 * a request answered before its body was read leaves its connection reusable (a small body is drained) or closed.
 *
 * `origin` is the server's own origin (`https://app.example`), the base of the request URLs the handler sees; default
 * `http://` and the `Host` header. The request-target only ever gives the path: `//evil.example/x` is a path.
 */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
  options: { origin?: string } = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    void (async () => {
      try {
        const response = await answer(handler, req, options.origin, aborted.signal);
        settleUnreadBody(req, res);
        res.statusCode = response.status;
        const cookies = response.headers.getSetCookie();
        response.headers.forEach((value, name) => {
          if (name !== 'set-cookie') res.setHeader(name, value);
        });
        if (cookies.length > 0) res.setHeader('set-cookie', cookies);
        if (!response.body) {
          res.end();
          return;
        }
        res.flushHeaders();
        const reader = response.body.getReader();
        aborted.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
        // An errored body (a stream that dropped a client that stopped reading) ends a wait for room at once.
        const broken = reader.closed.then(
          () => undefined,
          () => undefined,
        );
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          // A client that does not read fills the socket: stop pulling the handler's stream until it drains.
          if (!res.write(value)) await drained(res, broken);
        }
        res.end();
      } catch {
        if (res.headersSent) {
          // The body broke off: the client must not take what it got for the whole answer.
          res.destroy();
          return;
        }
        settleUnreadBody(req, res);
        res.statusCode = 500;
        res.end();
      }
    })();
  };
}

/** The handler's answer; a request that cannot be one (a `Host` that is no host) is refused here. */
async function answer(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  origin: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  let request: Request;
  try {
    request = toRequest(req, origin, signal);
  } catch (error) {
    if (HttpRefusal.isInstance(error)) return refusalResponse(error);
    throw error;
  }
  return await handler(request);
}

/** The fetch request of a Node request: its path on the server's origin, its headers, its body read on demand. */
function toRequest(req: IncomingMessage, origin: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(requestUrl(req, origin), {
    method,
    headers,
    signal,
    ...(hasBody ? { body: bodyOf(req), duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * The request's URL: the server's origin and the request-target's path. The target is never parsed as a URL of its
 * own: `new URL('//evil.example/x', base)` is evil.example's, and the handler would take it for its own origin.
 */
function requestUrl(req: IncomingMessage, origin: string | undefined): URL {
  let base: URL;
  try {
    base = new URL(origin ?? `http://${req.headers.host ?? 'localhost'}`);
  } catch {
    throw HttpRefusal.of(RefusalCode.InputMalformed, 'Malformed request: the Host header is not a host.');
  }
  const target = req.url ?? '/';
  if (target.startsWith('/')) return new URL(`${base.origin}${target}`);
  // The absolute form (`GET http://host/path`, sent to proxies): only its path and query count.
  try {
    const absolute = new URL(target);
    return new URL(`${base.origin}${absolute.pathname}${absolute.search}`);
  } catch {
    return new URL(`${base.origin}/`);
  }
}

/**
 * The request body as a web stream that reads from the socket only when the handler reads: a body the handler never
 * reads stays unread, for {@link settleUnreadBody}. Cancelling stops reading without destroying the connection.
 */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Buffer> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        chunks ??= req.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      },
      async cancel() {
        await chunks?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A request answered before its body was read (a 413, 401, 403, 404, 405…) leaves the rest of the body on the
 * connection, where the client's next request would wait behind it. A body declared at most {@link DRAIN_BODY_BYTES}
 * long is read and dropped (the connection stays, for {@link DRAIN_MS} at most); any other closes the connection once
 * the answer is sent.
 */
function settleUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || req.destroyed) return;
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (!(Number.isSafeInteger(declared) && declared <= DRAIN_BODY_BYTES)) {
    res.setHeader('connection', 'close');
  } else {
    const timer = setTimeout(() => req.socket.destroy(), DRAIN_MS);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
    req.once('close', () => clearTimeout(timer));
  }
  // Read what comes and drop it: the answer reaches the client before the connection closes, not a reset.
  req.resume();
}

/** Resolves when the response's socket has room again, the response closed, or `broken` settles. */
async function drained(res: ServerResponse, broken: Promise<void>): Promise<void> {
  let done!: () => void;
  const room = new Promise<void>((resolve) => (done = resolve));
  res.on('drain', done);
  res.on('close', done);
  try {
    await Promise.race([room, broken]);
  } finally {
    res.off('drain', done);
    res.off('close', done);
  }
}
