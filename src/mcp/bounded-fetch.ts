import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * A `fetch` for the HTTP transports that refuses oversized messages from a server: a JSON response body, or one
 * event of an SSE stream (the bytes between blank lines), may not exceed `maxBytes`. A long-lived SSE stream
 * carries many events, so only each event is bounded, not the stream. When a message is too large the body
 * errors and `onOversize` is called, so the connection can fail its calls with a clear reason instead of
 * buffering without limit.
 */
export function boundedFetch(
  maxBytes: number,
  onOversize: (bytes: number) => void,
  base: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    const perEvent = response.headers.get('content-type')?.includes('text/event-stream') ?? false;
    let count = 0;
    let previous = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (const byte of chunk) {
          count += 1;
          // Checked per byte: the event's end may come later in this very chunk and reset the count.
          if (count > maxBytes) {
            onOversize(count);
            controller.error(new Error(`the MCP server sent a message over ${maxBytes} bytes`));
            return;
          }
          if (byte === 13) continue;
          // A blank line ends an SSE event: start counting the next one.
          if (perEvent && byte === 10 && previous === 10) count = 0;
          previous = byte;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
