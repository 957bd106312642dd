/** Headers of an AI SDK UI message stream over server-sent events. */
export const UI_MESSAGE_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  // Proxies such as nginx buffer responses unless told otherwise, which would hold the tokens back.
  'x-accel-buffering': 'no',
} as const;

/** Headers of an AG-UI event stream over server-sent events. */
export const AG_UI_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/** Writes JSON events as SSE `data:` lines. */
export interface EventWriter<E> {
  write(event: E): void;
}

/** How {@link sseResponse} frames one protocol's stream. */
export interface SseFraming<E> {
  headers: Record<string, string>;
  /** A last line after the events (the UI message stream's `[DONE]`). */
  done?: string;
  /** The event written when the stream breaks off (its details go to `onError`). */
  broken: E;
}

/**
 * An SSE response whose events `produce` writes. A comment line goes out every `keepAliveMs` so that proxies and
 * load balancers do not close an idle stream while a run waits. `signal` is the request's: when the client
 * disconnects, `produce` sees it aborted and the response ends (the run goes on).
 */
export function sseResponse<E>(
  produce: (writer: EventWriter<E>, signal: AbortSignal) => Promise<void>,
  framing: SseFraming<E>,
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
      const writer: EventWriter<E> = { write: (event) => send(`data: ${JSON.stringify(event)}\n\n`) };
      void (async () => {
        try {
          await produce(writer, stop.signal);
        } catch (error) {
          if (!stop.signal.aborted) {
            options.onError(error);
            writer.write(framing.broken);
          }
        } finally {
          clearInterval(timer);
          options.signal.removeEventListener('abort', abort);
          if (framing.done !== undefined) send(`data: ${framing.done}\n\n`);
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
  return new Response(body, { status: 200, headers: framing.headers });
}
