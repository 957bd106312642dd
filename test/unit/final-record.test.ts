// The final record's byte bound: UTF-8 bytes of the exact JSON, oldest events dropped first and counted.
import { describe, expect, it } from 'vitest';
import {
  MAX_FINAL_RECORD_BYTES,
  MAX_FINAL_TRANSCRIPT_BYTES,
  ZERO_USAGE,
  finalRunRecord,
  isFinalRunRecord,
  jsonBytes,
  type RunEvent,
  type RunState,
} from '../../src/protocol/index.js';
import { recordedStreamFrom } from '../../src/client/history/stream-from-history.js';

const state: RunState = {
  status: 'completed',
  step: 1,
  usage: ZERO_USAGE,
  pendingApprovals: [],
  pendingToolResults: [],
  pendingElicitations: [],
  runningTools: [],
  messageCount: 3,
  lastEventSeq: 40,
};

/** Events seq 11..40 (as after a continue-as-new that carried them), each text of `chars` characters of `char`. */
function events(char: string, chars: number): RunEvent[] {
  return Array.from({ length: 30 }, (_, i) => ({
    type: 'text',
    step: 1,
    text: char.repeat(chars),
    seq: 11 + i,
    at: '2026-01-01T00:00:00.000Z',
  }));
}

describe('finalRunRecord', () => {
  it('keeps every event under the bound', () => {
    const all = events('a', 10);
    const record = finalRunRecord(all, state);
    expect(record).toEqual({ version: 1, firstSeq: 11, truncated: 0, events: all, state });
    expect(isFinalRunRecord(record)).toBe(true);
  });

  it('drops the oldest events beyond the bound, says how many, and counts UTF-8 bytes', () => {
    // 100 emoji are 200 UTF-16 units but 400 UTF-8 bytes: a bound in UTF-16 units would keep twice as many.
    const all = events('😀', 100);
    const one = jsonBytes(all[0]);
    const maxBytes = 5_000;
    const record = finalRunRecord(all, state, maxBytes);
    expect(jsonBytes(record)).toBeLessThanOrEqual(maxBytes);
    expect(record.truncated).toBeGreaterThan(0);
    expect(record.truncated + record.events.length).toBe(30);
    // The newest are kept, in order, and one more would not have fitted.
    expect(record.events.map((e) => e.seq)).toEqual(all.slice(record.truncated).map((e) => e.seq));
    expect(record.firstSeq).toBe(11);
    expect(jsonBytes(record) + one + 1).toBeGreaterThan(maxBytes);
    expect(JSON.stringify(record).length).toBeLessThan(maxBytes / 1.5);
  });

  it('keeps the state when not even one event fits, and an empty log', () => {
    const record = finalRunRecord(events('b', 1_000), state, 500);
    expect(record.events).toEqual([]);
    expect(record.truncated).toBe(30);
    expect(record.state).toEqual(state);
    expect(finalRunRecord([], state)).toEqual({ version: 1, firstSeq: 41, truncated: 0, events: [], state });
  });

  it('keeps the transcript tail within its own bound (UTF-8 bytes) and leaves it out over it', () => {
    const part = (value: string) => ({
      type: 'tool-result' as const,
      toolCallId: 'c1',
      toolName: 't',
      output: { type: 'text' as const, value },
    });
    // 16,500 emoji: 33,000 UTF-16 units (under the bound) but 66,000 UTF-8 bytes plus the JSON around them (over).
    const over = { messageCount: 4, delta: { at: 3, content: [part('😀'.repeat(16_500))] } };
    expect(JSON.stringify(over).length).toBeLessThan(MAX_FINAL_TRANSCRIPT_BYTES);
    expect(jsonBytes(over)).toBeGreaterThan(MAX_FINAL_TRANSCRIPT_BYTES);
    expect(finalRunRecord([], state, MAX_FINAL_RECORD_BYTES, over)).not.toHaveProperty('transcript');
    const under = { messageCount: 4, delta: { at: 3, content: [part('a'.repeat(1_000))] } };
    const record = finalRunRecord(events('a', 10), state, MAX_FINAL_RECORD_BYTES, under);
    expect(record.transcript).toEqual(under);
    expect(isFinalRunRecord(record)).toBe(true);
    // The events' bound counts the transcript's bytes too.
    const tight = finalRunRecord(events('a', 10), state, jsonBytes(record) - 1, under);
    expect(tight.truncated).toBe(1);
    expect(jsonBytes(tight)).toBeLessThan(jsonBytes(record));
  });

  it('rejects what is not a record (a memo anyone could have set)', () => {
    expect(isFinalRunRecord(null)).toBe(false);
    expect(isFinalRunRecord({ version: 2, firstSeq: 1, truncated: 0, events: [], state })).toBe(false);
    expect(isFinalRunRecord({ version: 1, firstSeq: 1, truncated: 0, events: 'x', state })).toBe(false);
  });
});

describe('the stream section of the record, and reading a finished run from it', () => {
  /** Events seq 1..n at stream offsets 0, 3, 6, ... (deltas and progress between them), next offset after. */
  function streamed(n: number, chars = 10) {
    const all = Array.from({ length: n }, (_, i) => ({ ...events('a', chars)[0]!, seq: i + 1 }));
    return { all, stream: { nextOffset: 3 * n, eventOffsets: all.map((_, i) => 3 * i) } };
  }

  it('keeps each kept event’s offset, aligned, within the byte bound', () => {
    const { all, stream } = streamed(500, 400);
    const record = finalRunRecord(all, { ...state, lastEventSeq: 500 }, 64 * 1024, undefined, stream);
    expect(record.truncated).toBeGreaterThan(0);
    expect(jsonBytes(record)).toBeLessThanOrEqual(64 * 1024);
    expect(record.stream!.eventOffsets).toEqual(record.events.map((e) => 3 * (e.seq - 1)));
    expect(record.stream!.nextOffset).toBe(1_500);
  });

  it('gives the events at or after an offset, and says so when the record may lack some', () => {
    const { all, stream } = streamed(10);
    const complete = finalRunRecord(all, { ...state, lastEventSeq: 10 }, undefined, undefined, stream);
    // Offsets 13, 14 are deltas or progress of the step event 6 (offset 15) closes: skipped, not missed.
    expect(recordedStreamFrom(complete, 13)?.map((p) => p.offset)).toEqual([15, 18, 21, 24, 27]);
    expect(recordedStreamFrom(complete, 0)?.[0]).toMatchObject({ type: 'event', offset: 0 });
    expect(recordedStreamFrom(complete, 30)).toEqual([]);

    // The oldest 4 dropped to fit: a reader from before the first kept event is told.
    const cut = { ...complete, truncated: 4, events: complete.events.slice(4) };
    cut.stream = { nextOffset: 30, eventOffsets: complete.stream!.eventOffsets.slice(4) };
    expect(recordedStreamFrom(cut, 2)?.slice(0, 2)).toEqual([
      { type: 'truncated', offset: 12, missedFrom: 2 },
      { type: 'event', offset: 12, event: complete.events[4] },
    ]);
    expect(recordedStreamFrom(cut, 13)?.[0]).toMatchObject({ type: 'event', offset: 15 });

    // Carried over continue-as-new from before the carried log: offset unknown (-1), treated as dropped.
    const carried = {
      ...complete,
      stream: { nextOffset: 30, eventOffsets: [-1, -1, ...stream.eventOffsets.slice(2)] },
    };
    expect(recordedStreamFrom(carried, 0)?.[0]).toEqual({ type: 'truncated', offset: 6, missedFrom: 0 });
    // A record of older code has no stream section; a malformed one is not trusted.
    expect(recordedStreamFrom({ ...complete, stream: undefined }, 0)).toBeUndefined();
    expect(recordedStreamFrom({ ...complete, stream: { nextOffset: 30, eventOffsets: [1] } }, 0)).toBeUndefined();
  });
});
