import type { UIMessageChunk } from 'ai';

/** Headers of an AI SDK UI message stream over server-sent events. */
export const UI_MESSAGE_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  // Proxies such as nginx buffer responses unless told otherwise, which would hold the tokens back.
  'x-accel-buffering': 'no',
} as const;

/** Writes chunks of a UI message stream as SSE `data:` lines. */
export interface ChunkWriter {
  write(chunk: UIMessageChunk): void;
}

/**
 * An SSE response whose events `produce` writes. A comment line goes out every `keepAliveMs` so that proxies and
 * load balancers do not close an idle stream while a run waits; `[DONE]` ends it. `signal` is the request's: when the
 * client disconnects, `produce` sees it aborted and the response ends (the run goes on).
 */
export function sseResponse(
  produce: (writer: ChunkWriter, signal: AbortSignal) => Promise<void>,
  options: { keepAliveMs: number; signal: AbortSignal; onError: (error: unknown) => void },
): Response {
  const encoder = new TextEncoder();
  const stop = new AbortController();
  const abort = () => stop.abort();
  options.signal.addEventListener('abort', abort, { once: true });
  let timer: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const send = (text: string) => {
        if (closed || stop.signal.aborted) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          closed = true;
        }
      };
      timer = setInterval(() => send(': keep-alive\n\n'), options.keepAliveMs);
      timer.unref?.();
      const writer: ChunkWriter = { write: (chunk) => send(`data: ${JSON.stringify(chunk)}\n\n`) };
      void (async () => {
        try {
          await produce(writer, stop.signal);
        } catch (error) {
          if (!stop.signal.aborted) {
            options.onError(error);
            writer.write({ type: 'error', errorText: 'The stream of this run broke off; resume it to read on.' });
          }
        } finally {
          clearInterval(timer);
          options.signal.removeEventListener('abort', abort);
          send('data: [DONE]\n\n');
          closed = true;
          try {
            controller.close();
          } catch {
            // Already closed by a cancelled reader.
          }
        }
      })();
    },
    cancel() {
      clearInterval(timer);
      stop.abort();
    },
  });
  return new Response(body, { status: 200, headers: UI_MESSAGE_STREAM_HEADERS });
}
