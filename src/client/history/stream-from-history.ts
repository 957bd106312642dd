// What a client reads of a finished run's stream from Temporal alone, with no worker: the end of its stream, as its
// final record holds it. (Whether a run has a stream its memo says: src/client/run-protocol.ts.)
import { isFinalStreamRecord, type FinalRunRecord, type RunEvent } from '../../protocol/index.js';

/** One recorded event of a finished run with its stream offset, or the gap before the record's first known one. */
export type RecordedStreamPart =
  | { type: 'event'; offset: number; event: RunEvent }
  | { type: 'truncated'; offset: number; missedFrom: number };

/**
 * The end of a finished run's stream from `from`, as its final record holds it: the events at or after `from`, in
 * order. What else lay there (model deltas, tool progress) belongs to steps the events close. When the record may
 * lack events from there (the oldest were dropped to bound it, or carried over from before the stream's carried
 * log), a `truncated` part says which offsets were not read. Undefined when the record has no stream section.
 */
export function recordedStreamFrom(record: FinalRunRecord, from: number): RecordedStreamPart[] | undefined {
  const stream = record.stream;
  if (!isFinalStreamRecord(stream, record.events)) return undefined;
  const parts: RecordedStreamPart[] = [];
  const known = record.events.flatMap((event, i) => {
    const offset = stream.eventOffsets[i]!;
    return offset >= 0 ? [{ event, offset }] : [];
  });
  // Events the record lacks are older than every event it kept with an offset: only a reader from before the
  // first of those may have missed some.
  const incomplete = record.truncated > 0 || record.firstSeq > 1 || known.length < record.events.length;
  const firstKnown = known[0]?.offset ?? stream.nextOffset;
  if (incomplete && from < firstKnown) parts.push({ type: 'truncated', offset: firstKnown, missedFrom: from });
  for (const entry of known) if (entry.offset >= from) parts.push({ type: 'event', ...entry });
  return parts;
}
