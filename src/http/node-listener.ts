import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Serves a fetch handler from Node's `http` server: `createServer(toNodeListener(handler))`. The request's signal
 * aborts when the client goes away, so a disconnected page only stops its stream (the run goes on).
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
        const origin = options.origin ?? `http://${req.headers.host ?? 'localhost'}`;
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        const method = req.method ?? 'GET';
        const hasBody = method !== 'GET' && method !== 'HEAD';
        const request = new Request(new URL(req.url ?? '/', origin), {
          method,
          headers,
          signal: aborted.signal,
          ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
        } as RequestInit);
        const response = await handler(request);
        res.statusCode = response.status;
        response.headers.forEach((value, name) => res.setHeader(name, value));
        if (!response.body) {
          res.end();
          return;
        }
        res.flushHeaders();
        const reader = response.body.getReader();
        aborted.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
        res.end();
      } catch {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      }
    })();
  };
}
