// The tool-progress events a Redis reader makes of a run's progress items, by the rules the run applies on Workflow
// Streams: newer yields only, never an older attempt's, none after the call's result, none before a run event.
import { describe, expect, it } from 'vitest';
import { LiveProgressEvents } from '../../src/client/live-progress-events.js';
import type { RunEvent } from '../../src/protocol/index.js';

const at = '2026-01-01T00:00:00.000Z';
const started: RunEvent = { seq: 4, at, type: 'tool-started', step: 1, toolCallId: 'dl', toolName: 'download' };
const yieldOf = (seq: number, attempt = 1, toolCallId = 'dl') => ({ toolCallId, seq, attempt, value: { done: seq } });

describe('LiveProgressEvents', () => {
  it('makes a yield the tool-progress event the run would show, with the seq and time of the event before it', () => {
    const events = new LiveProgressEvents();
    events.event(started);
    expect(events.progress(yieldOf(1))).toEqual({
      seq: 4,
      at,
      type: 'tool-progress',
      toolCallId: 'dl',
      progressSeq: 1,
      value: { done: 1 },
    });
    expect(events.progress(yieldOf(3))?.progressSeq).toBe(3);
    // Another call's yields are its own.
    expect(events.progress(yieldOf(1, 1, 'other'))?.progressSeq).toBe(1);
  });

  it('drops a yield not newer than the last shown, an older attempt’s, and any after the call’s result', () => {
    const events = new LiveProgressEvents();
    events.event(started);
    expect(events.progress(yieldOf(2))).toBeDefined();
    expect(events.progress(yieldOf(2))).toBeUndefined();
    expect(events.progress(yieldOf(1))).toBeUndefined();
    // A retried attempt counts from 1 again: its repeated yields wait until they pass the last one shown.
    expect(events.progress(yieldOf(2, 2))).toBeUndefined();
    expect(events.progress(yieldOf(3, 2))?.progressSeq).toBe(3);
    // The first attempt still writing (a zombie) is not shown once a newer one was.
    expect(events.progress(yieldOf(9, 1))).toBeUndefined();
    events.event({
      seq: 5,
      at,
      type: 'tool-result',
      step: 1,
      toolCallId: 'dl',
      toolName: 'download',
      outcome: 'ok',
      output: 'done',
    });
    expect(events.progress(yieldOf(4, 2))).toBeUndefined();
  });

  it('makes no event of a yield read before any run event, or of a malformed one', () => {
    const events = new LiveProgressEvents();
    expect(events.progress(yieldOf(1))).toBeUndefined();
    events.event(started);
    expect(events.progress({ toolCallId: 'dl', seq: 1.5, attempt: 1, value: null })).toBeUndefined();
    expect(events.progress({ toolCallId: 'dl', seq: 1, attempt: Number.NaN, value: null })).toBeUndefined();
    expect(events.progress(null as never)).toBeUndefined();
    expect(events.progress(yieldOf(1))?.seq).toBe(4);
  });
});
