import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal } from './http-refusal.js';

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
  /**
   * Resolves once the client has read enough of what was written: what waits for it is under the stream's buffer
   * bound. A producer awaits it before it reads more of the run, so a client that reads slowly slows the reading, and
   * one that stops reading costs one buffer, not the whole turn.
   *
   * @throws HttpRefusal `Http.SlowReader` when the client has read nothing for `slowStreamMs` with the buffer full: the stream ends.
   */
  ready(): Promise<void>;
}

/** How {@link sseResponse} frames one protocol's stream. */
export interface SseFraming<E> {
  headers: Record<string, string>;
  /** A last line after the events (the UI message stream's `[DONE]`). */
  done?: string;
  /** The event written when the stream breaks off (its details go to `onError`). */
  broken: E;
  /** The event written when the client reads too slowly and the stream ends (`Http.SlowReader`). */
  slow: E;
}

/** The bounds of one event stream (the handler's `streamBufferBytes`, `slowStreamMs`). */
export interface StreamBounds {
  /** Most bytes written and not yet read by the client before the producer waits (plus the part being written). */
  bufferBytes: number;
  /** How long a client may read nothing while its buffer is full before the stream ends. */
  slowStreamMs: number;
}

/** How one event stream runs: its bounds, its keep-alives, its request's signal, and who is told when it ends. */
export interface StreamOptions extends StreamBounds {
  keepAliveMs: number;
  signal: AbortSignal;
  onError: (error: unknown) => void;
  onClose?: () => void;
}

/**
 * An SSE response whose events `produce` writes. A comment line goes out every `keepAliveMs` while nothing waits
 * for the client, so that proxies and load balancers do not close an idle stream while a run waits. `signal` is the
 * request's: when the client disconnects, `produce` sees it aborted and the response ends (the run goes on).
 *
 * The response holds at most `bufferBytes` the client has not read (plus the event being written): `produce` waits on
 * `writer.ready()`. A client that reads nothing for `slowStreamMs` with that buffer full is sent the framing's `slow`
 * event and the stream ends; if it still reads nothing for as long, the stream errors, so its connection is dropped.
 * `onClose` is called once when the stream ends, however it ends.
 */
export function sseResponse<E>(
  produce: (writer: EventWriter<E>, signal: AbortSignal) => Promise<void>,
  framing: SseFraming<E>,
  options: StreamOptions,
): Response {
  const encoder = new TextEncoder();
  const stop = new AbortController();
  const abort = () => stop.abort();
  options.signal.addEventListener('abort', abort, { once: true });
  let closedOnce = false;
  const closed = () => {
    if (closedOnce) return;
    closedOnce = true;
    clearInterval(timer);
    options.signal.removeEventListener('abort', abort);
    options.onClose?.();
  };
  let timer: ReturnType<typeof setInterval> | undefined;
  /** Wakes a producer waiting for room: the client read some of the buffer. */
  let room: (() => void) | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  const send = (text: string) => {
    if (ended || stop.signal.aborted) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      ended = true;
    }
  };
  /** Resolves when the buffer has room, false when the client read nothing for `slowStreamMs` (or went away). */
  const hasRoom = (): Promise<boolean> => {
    if ((controller.desiredSize ?? 0) > 0 || ended || stop.signal.aborted) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(slow);
        stop.signal.removeEventListener('abort', gone);
        room = undefined;
        resolve(ok);
      };
      const gone = () => done(true);
      const slow = setTimeout(() => done(false), options.slowStreamMs);
      slow.unref?.();
      stop.signal.addEventListener('abort', gone, { once: true });
      room = () => done(true);
    });
  };
  const writer: EventWriter<E> = {
    write: (event) => send(`data: ${JSON.stringify(event)}\n\n`),
    ready: async () => {
      if (!(await hasRoom())) {
        throw HttpRefusal.of(RefusalCode.HttpSlowReader, 'The client read nothing for slowStreamMs.');
      }
    },
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        timer = setInterval(() => {
          // Only an idle stream needs them; a client that is behind has events waiting.
          if (controller.desiredSize === options.bufferBytes) send(': keep-alive\n\n');
        }, options.keepAliveMs);
        timer.unref?.();
        void (async () => {
          let slow = false;
          try {
            await produce(writer, stop.signal);
          } catch (error) {
            if (HttpRefusal.isInstance(error) && error.code === RefusalCode.HttpSlowReader) {
              slow = true;
              writer.write(framing.slow);
            } else if (!stop.signal.aborted) {
              options.onError(error);
              writer.write(framing.broken);
            }
          } finally {
            if (framing.done !== undefined) send(`data: ${framing.done}\n\n`);
            // A client that stopped reading gets its last events only if it reads them in time; else its
            // connection is dropped (the stream errors), so it holds no buffer and no socket.
            if (slow && !(await hasRoom())) {
              ended = true;
              try {
                controller.error(new Error('The client read nothing for slowStreamMs.'));
              } catch {
                // Already cancelled.
              }
            } else {
              ended = true;
              try {
                controller.close();
              } catch {
                // Already closed by a cancelled reader.
              }
            }
            closed();
          }
        })();
      },
      pull() {
        room?.();
      },
      cancel() {
        ended = true;
        stop.abort();
        closed();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: options.bufferBytes }),
  );
  return new Response(body, { status: 200, headers: framing.headers });
}

/** The stream options of a route's response, from the handler's settings. */
export function streamOptions(
  settings: { keepAliveMs: number; streamBufferBytes: number; slowStreamMs: number },
  request: Request,
  onError: (error: unknown, request: Request) => void,
  onClose: () => void,
): StreamOptions {
  return {
    keepAliveMs: settings.keepAliveMs,
    bufferBytes: settings.streamBufferBytes,
    slowStreamMs: settings.slowStreamMs,
    signal: request.signal,
    onError: (error: unknown) => onError(error, request),
    onClose,
  };
}
