import { jsonBytes } from './bytes.js';
import type { TranscriptDelta } from './activity-io.js';
import type { RunEvent } from './events.js';
import type { RunState } from './run.js';

/**
 * The memo key under which a run that ended (completed, failed or cancelled) keeps its final event log and state.
 * A client reads it from `describe` (or the history's `WorkflowPropertiesModified` event) with no worker up.
 */
export const FINAL_RECORD_MEMO_KEY = 'durable-agent.final-record';

/**
 * Upper bound on the UTF-8 bytes of the record's JSON (before the payload codec). Temporal refuses a memo over
 * 2 MB and copies memos into every list result, so the record keeps well under it; the codec's own overhead (a few
 * dozen bytes for encryption) fits in the margin.
 */
export const MAX_FINAL_RECORD_BYTES = 256 * 1024;

/**
 * Upper bound on the UTF-8 bytes of the record's {@link FinalTranscript} JSON. A step's inline results are up to
 * 16 KiB each, so a wide last step could crowd out the events: over this bound the record keeps no `transcript`
 * and a client reads that run's transcript through a worker, as for a run ended on older code.
 */
export const MAX_FINAL_TRANSCRIPT_BYTES = 64 * 1024;

/**
 * What a client's rebuild of the transcript from history lacks at the run's end: the last step's tool message, which
 * no later `generate` input carries (in the compact form of a `generate` input's delta: executed results by
 * reference), and the final message count that proves the rebuild.
 */
export interface FinalTranscript {
  messageCount: number;
  /** The last step's tool message when the run ended after pushing it (step budget, a tool's denial, ...). */
  delta?: TranscriptDelta;
}

/**
 * What a run records once when it ends: the events its event query would answer then (oldest dropped beyond
 * {@link MAX_FINAL_RECORD_BYTES}) and the answer of its state query.
 */
export interface FinalRunRecord {
  version: 1;
  /**
   * The `seq` of the first event the execution still held when it ended (events before it were left on an earlier
   * execution by continue-as-new). 1 when nothing was dropped that way.
   */
  firstSeq: number;
  /** How many of the execution's oldest events were dropped to keep the record under its byte bound. */
  truncated: number;
  /** The kept events, oldest first, with their `seq` and `at` as the event query gives them. */
  events: RunEvent[];
  /** The state query's answer at the run's end. */
  state: RunState;
  /**
   * Set by 0.4.0 workflows unless over {@link MAX_FINAL_TRANSCRIPT_BYTES}; records written before it have none (the
   * field was added without a new `version`, so readers treat it as optional).
   */
  transcript?: FinalTranscript;
  /**
   * Where the kept events sit in the run's stream, for runs with one (0.4.0): a client that read the stream up to
   * some offset reads the rest of a finished run from here, with no worker. Optional, like {@link transcript}.
   */
  stream?: FinalStreamRecord;
}

/**
 * The stream's end as the run recorded it: its next offset, and the stream offset of each kept event (-1 for an
 * event the stream no longer knows: one carried over continue-as-new from before the carried log). What lies
 * between the events' offsets is model deltas and tool progress, which the events of the same step stand in for
 * once it is over (the step's `text`, `tool-call` and `tool-result` events).
 */
export interface FinalStreamRecord {
  nextOffset: number;
  /** One per kept event, in the same order. */
  eventOffsets: number[];
}

/**
 * The record of a run's end: every event in `events` unless the whole exceeds `maxBytes` UTF-8 bytes of JSON, in
 * which case the oldest are dropped (counted in `truncated`) until it fits. The state is always kept, and so is
 * `transcript` unless it is over {@link MAX_FINAL_TRANSCRIPT_BYTES}.
 */
export function finalRunRecord(
  events: RunEvent[],
  state: RunState,
  maxBytes: number = MAX_FINAL_RECORD_BYTES,
  transcript?: FinalTranscript,
  /** The run's stream at its end: its next offset and each event's offset (aligned with `events`). */
  stream?: FinalStreamRecord,
): FinalRunRecord {
  const firstSeq = events[0]?.seq ?? state.lastEventSeq + 1;
  const tail = transcript && jsonBytes(transcript) <= MAX_FINAL_TRANSCRIPT_BYTES ? { transcript } : {};
  const withStream = stream ? { stream: { nextOffset: stream.nextOffset, eventOffsets: [] as number[] } } : {};
  // The record's bytes without events, plus each event's own bytes and a comma (and its offset and a comma): the
  // exact JSON length.
  const base = jsonBytes({ version: 1, firstSeq, truncated: events.length, events: [], state, ...tail, ...withStream });
  let total = base;
  let keep = events.length;
  for (let i = events.length - 1; i >= 0; i--) {
    const comma = i === events.length - 1 ? 0 : 1;
    const offset = stream ? jsonBytes(stream.eventOffsets[i] ?? -1) + comma : 0;
    const size = jsonBytes(events[i]) + comma + offset;
    if (total + size > maxBytes) break;
    total += size;
    keep = i;
  }
  const kept = events.slice(keep);
  const record: FinalRunRecord = { version: 1, firstSeq, truncated: events.length - kept.length, events: kept, state };
  if (tail.transcript) record.transcript = tail.transcript;
  if (stream) {
    const eventOffsets = events.map((_, i) => stream.eventOffsets[i] ?? -1).slice(keep);
    record.stream = { nextOffset: stream.nextOffset, eventOffsets };
  }
  return record;
}

/** True when `value` has the shape of a {@link FinalStreamRecord} aligned with `events`. */
export function isFinalStreamRecord(value: unknown, events: readonly unknown[]): value is FinalStreamRecord {
  if (typeof value !== 'object' || value === null) return false;
  const stream = value as Partial<FinalStreamRecord>;
  return (
    Number.isSafeInteger(stream.nextOffset) &&
    Array.isArray(stream.eventOffsets) &&
    stream.eventOffsets.length === events.length &&
    stream.eventOffsets.every((offset) => Number.isSafeInteger(offset))
  );
}

/** True when `value` has the shape of a {@link FinalRunRecord} (a memo is written by whoever holds the namespace). */
export function isFinalRunRecord(value: unknown): value is FinalRunRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<FinalRunRecord>;
  return (
    record.version === 1 &&
    typeof record.firstSeq === 'number' &&
    typeof record.truncated === 'number' &&
    Array.isArray(record.events) &&
    typeof record.state === 'object' &&
    record.state !== null
  );
}
