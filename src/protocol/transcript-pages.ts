import type { RunContextData } from './descriptor.js';
import type { TranscriptSlice } from './activity-io.js';
import type { TranscriptMessage } from './messages.js';

/** Asks the run's transcript query for one page. */
export type TranscriptPageQuery = (from: number, to: number | undefined, fromPart: number) => Promise<TranscriptSlice>;

/**
 * Reads transcript messages `[from, to)` page by page (each answer of the transcript query is bounded), joining a
 * message that came in pieces. `to` undefined reads to the end. Pure: the query is passed in.
 */
export async function readTranscript(
  query: TranscriptPageQuery,
  from: number,
  to?: number,
): Promise<{ messages: TranscriptMessage[]; run: RunContextData | undefined }> {
  const messages: TranscriptMessage[] = [];
  let run: RunContextData | undefined;
  let parts: unknown[] = [];
  for (;;) {
    const at = from + messages.length;
    if (to !== undefined && at >= to) break;
    const slice = await query(at, to, parts.length);
    run = slice.run;
    if (slice.piece) {
      parts = [...parts, ...slice.piece.parts];
      if (parts.length >= slice.piece.totalParts) {
        messages.push({ role: slice.piece.role, content: parts } as TranscriptMessage);
        parts = [];
      }
      continue;
    }
    if (slice.messages.length === 0) break;
    messages.push(...slice.messages);
    if (to === undefined && from + messages.length >= slice.total) break;
  }
  return { messages, run };
}
