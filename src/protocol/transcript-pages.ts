import type { RunContextData } from './descriptor.js';
import type { TranscriptSlice } from './activity-io.js';
import { jsonBytes } from './bytes.js';
import type { TranscriptMessage } from './messages.js';

/** Asks the run's transcript query for one page. */
export type TranscriptPageQuery = (from: number, to: number | undefined, fromPart: number) => Promise<TranscriptSlice>;

/**
 * A transcript query answers at most about this many UTF-8 bytes of messages (at least one message or one part),
 * well under Temporal's 2 MB payload limit for a query result.
 */
export const TRANSCRIPT_PAGE_BYTES = 1_000_000;

/**
 * One page of a transcript, as the run's transcript query answers it: messages `[from, to)` up to `pageBytes` of
 * UTF-8 JSON (at least one). A message larger than a page whose content is a list of parts (say, a step with several
 * big tool outputs) comes in pieces of its parts from `fromPart`. Pure, so the workflow and its tests share it.
 */
export function serveTranscriptPage(
  messages: readonly TranscriptMessage[],
  request: { from: number; to?: number; fromPart?: number },
  answer: { runId: string; run: RunContextData },
  pageBytes = TRANSCRIPT_PAGE_BYTES,
): TranscriptSlice {
  const { from } = request;
  const fromPart = request.fromPart ?? 0;
  const base = { runId: answer.runId, from, total: messages.length, run: answer.run };
  const first = messages[from];
  if (first && Array.isArray(first.content) && (fromPart > 0 || jsonBytes(first) > pageBytes)) {
    const parts: unknown[] = [];
    let bytes = 0;
    for (let i = fromPart; i < first.content.length; i++) {
      bytes += jsonBytes(first.content[i]);
      if (parts.length > 0 && bytes > pageBytes) break;
      parts.push(first.content[i]);
    }
    return { ...base, messages: [], piece: { role: first.role, fromPart, parts, totalParts: first.content.length } };
  }
  const end = Math.min(request.to ?? messages.length, messages.length);
  const slice: TranscriptMessage[] = [];
  let bytes = 0;
  for (let i = from; i < end; i++) {
    bytes += jsonBytes(messages[i]);
    if (slice.length > 0 && bytes > pageBytes) break;
    slice.push(messages[i]!);
  }
  return { ...base, messages: slice };
}

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
