// A whole run as a UI message stream, live, for a page that watches it (the inbox's run view): unlike a chat turn's
// response, it does not end when the run waits for a person, since the page decides through the inbox's routes and
// goes on reading. It ends after the run's terminal event, or when the run's stream ends.
import type { UIMessageChunk } from 'ai';
import type { AgentRun } from '../client/agent-run.js';
import { RunWithoutStreamError } from '../client/errors/run-without-stream-error.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal } from './http-refusal.js';
import { sseResponse, UI_MESSAGE_STREAM_HEADERS, type EventWriter, type StreamOptions } from './sse.js';
import { UiMessageChunkMapper, type WebStreamPart } from './ui-message-chunks.js';

/** How a run view's response is framed and bounded. */
export interface RunViewOptions extends StreamOptions {
  /** The message id the page's copy of the run has. */
  messageId: string;
}

/**
 * The run's parts from its start as UI message stream chunks (SSE). A run started before 0.4.0 has no stream.
 *
 * @throws HttpRefusal `Http.Unsupported` for a run without a stream (its events are still read by the CLI).
 */
export async function runViewResponse(run: AgentRun, options: RunViewOptions): Promise<Response> {
  // Ending the response (the page left, or the body was cancelled) aborts the read, which ends a pending `next()`.
  const reading = new AbortController();
  const stopReading = () => reading.abort();
  options.signal.addEventListener('abort', stopReading, { once: true });
  const parts = (run.stream({ signal: reading.signal }) as AsyncIterable<WebStreamPart>)[Symbol.asyncIterator]();
  // The first read tells a run without a stream before the response starts.
  let first: IteratorResult<WebStreamPart>;
  try {
    first = await parts.next();
  } catch (error) {
    stopReading();
    if (RunWithoutStreamError.isInstance(error)) {
      throw HttpRefusal.of(
        RefusalCode.HttpUnsupported,
        'This run was started before runs had a stream: watch it with `durable-agent watch <runId>`.',
      );
    }
    throw error;
  }
  return sseResponse<UIMessageChunk>(
    async (writer, signal) => {
      signal.addEventListener('abort', stopReading, { once: true });
      try {
        await write(first, parts, options.messageId, writer, signal);
      } finally {
        stopReading();
        options.signal.removeEventListener('abort', stopReading);
      }
    },
    {
      headers: UI_MESSAGE_STREAM_HEADERS,
      done: '[DONE]',
      broken: { type: 'error', errorText: 'The stream of this run broke off; reload to read on.' },
      slow: { type: 'error', errorText: `${RefusalCode.HttpSlowReader}: this page read the run too slowly; reload.` },
    },
    options,
  );
}

async function write(
  first: IteratorResult<WebStreamPart>,
  parts: AsyncIterator<WebStreamPart>,
  messageId: string,
  writer: EventWriter<UIMessageChunk>,
  signal: AbortSignal,
): Promise<void> {
  const mapper = new UiMessageChunkMapper();
  writer.write({ type: 'start', messageId });
  for (let result = first; !result.done && !signal.aborted; result = await parts.next()) {
    for (const chunk of mapper.map(result.value)) writer.write(chunk);
    if (mapper.ended) return;
    // The run is read no faster than the page reads it.
    await writer.ready();
  }
  // A stream that ended without a terminal event (a terminated run): the message ends here.
  if (!signal.aborted) writer.write({ type: 'finish' });
}
