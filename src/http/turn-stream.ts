// Reads a turn's run stream for one response and writes it in a frontend protocol, ending after the run's
// terminal event or once the run waits for the page.
import type { AgentRun } from '../client/agent-run.js';
import { TERMINAL_EVENT_TYPES, type RunState } from '../protocol/index.js';
import type { EventWriter } from './sse.js';
import type { WebStreamPart } from './ui-message-chunks.js';
import { stateWaitsForPage, WaitTracker } from './wait-tracker.js';

/** How a protocol writes a turn: its parts, the pause when the run waits for the page, the end. */
export interface TurnProtocol<E> {
  /** What the run's waits end a response: approvals and client tool results only, or questions too. */
  readonly pausesOnQuestions: boolean;
  /** True once the run's terminal event was written. */
  readonly ended: boolean;
  start(): E[];
  /** A part from before where the response writes (the client has it): what it says, without writing it. */
  seen?(part: WebStreamPart): void;
  /** The events of one part; `next` is the offset after it. */
  map(part: WebStreamPart, next: number): E[];
  /** The last events when the run waits for the page (`state` says for what); `next`: where to go on reading. */
  waiting(next: number, state: RunState): E[];
  /** The last events when the stream ended without a terminal event (a terminated run). */
  closed(next: number): E[];
}

/** How long a stream that looks parked on a person waits for more parts before asking the run to confirm. */
const QUIET_MS = 250;
const MAX_QUIET_MS = 5_000;

/**
 * Writes the run's stream from offset `from` through `protocol` until it ends, waits for the page, or `signal`.
 * With `readFrom` (below `from`), the parts before `from` are read too but not written: they tell what the run waits
 * for (an approval asked before `from`), so a response that goes on where the client's copy ends still ends when
 * the run waits for the page. A terminal part among them is written, so the response ends as the run did.
 */
export async function writeTurn<E>(
  run: AgentRun,
  from: number,
  protocol: TurnProtocol<E>,
  writer: EventWriter<E>,
  signal: AbortSignal,
  readFrom = from,
): Promise<void> {
  for (const event of protocol.start()) writer.write(event);
  const waits = new WaitTracker(protocol.pausesOnQuestions);
  // Ending the response aborts the read, which ends the generator's pending `next()` (a `return()` would wait on it).
  const reading = new AbortController();
  const stopReading = () => reading.abort();
  signal.addEventListener('abort', stopReading, { once: true });
  const parts = (
    run.stream({ from: Math.min(readFrom, from), signal: reading.signal }) as AsyncIterable<WebStreamPart>
  )[Symbol.asyncIterator]();
  let next = from;
  let quietMs = QUIET_MS;
  let pending = parts.next();
  try {
    for (;;) {
      const result = waits.waitingForPage ? await Promise.race([pending, delay(quietMs)]) : await pending;
      if (result === 'quiet') {
        const state = await waitingState(run, protocol.pausesOnQuestions);
        if (state) {
          for (const event of protocol.waiting(next, state)) writer.write(event);
          return;
        }
        quietMs = Math.min(quietMs * 2, MAX_QUIET_MS);
        continue;
      }
      if (result.done) break;
      const part = result.value;
      pending = parts.next();
      quietMs = QUIET_MS;
      if (part.type === 'event') waits.see(part.event);
      const written = part.offset >= from || (part.type === 'event' && TERMINAL_EVENT_TYPES.has(part.event.type));
      if (!written) {
        protocol.seen?.(part);
        continue;
      }
      next = Math.max(next, part.offset + 1);
      for (const event of protocol.map(part, next)) writer.write(event);
      if (protocol.ended) return;
      // The run is read no faster than the client reads (one part ahead): a client that stops costs one buffer.
      await writer.ready();
    }
    if (!signal.aborted) for (const event of protocol.closed(next)) writer.write(event);
  } finally {
    signal.removeEventListener('abort', stopReading);
    reading.abort();
    pending.catch(() => undefined);
  }
}

/** The run's state when it confirms that it waits for the page (the events may still be on their way). */
async function waitingState(run: AgentRun, questions: boolean): Promise<RunState | undefined> {
  try {
    const state = await run.state();
    return stateWaitsForPage(state, questions) ? state : undefined;
  } catch {
    // No worker answered: keep streaming; the events will say when the run moves.
    return undefined;
  }
}

function delay(ms: number): Promise<'quiet'> {
  return new Promise((resolve) => setTimeout(() => resolve('quiet'), ms).unref?.());
}
