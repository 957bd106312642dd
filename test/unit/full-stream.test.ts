// The full-stream assembler: a run's stream parts (events, model deltas, resets, truncation markers) into the AI
// SDK's typed parts and a retry-safe text stream, from any offset. Crafted parts; no server.
import { describe, expect, it } from 'vitest';
import {
  FullStreamAssembler,
  TextStreamAssembler,
  toFullStream,
  toTextStream,
  type FullStreamPart,
} from '../../src/client/full-stream.js';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import { EVENT_OUTPUT_PREVIEW_CHARS, previewText, type RunEventBody } from '../../src/protocol/index.js';
import { wireParts, type Piece } from '../support/delta-parts.js';

/** Numbers stream items densely from offset 0 and run events from seq 1, as a run's stream does. */
function stream() {
  const parts: RunStreamPart[] = [];
  let seq = 0;
  const api = {
    parts,
    event(body: RunEventBody) {
      parts.push({
        type: 'event',
        offset: parts.length,
        event: { ...body, seq: ++seq, at: '2026-12-01T00:00:00.000Z' } as never,
      });
      return api;
    },
    deltas(step: number, attempt: number, ...pieces: Piece[]) {
      const wire = wireParts(pieces);
      parts.push({ type: 'deltas', offset: parts.length, deltas: { type: 'deltas', step, attempt, parts: wire } });
      return api;
    },
    reset(step: number, attempt: number) {
      parts.push({ type: 'deltas', offset: parts.length, deltas: { type: 'reset-step', step, attempt } });
      return api;
    },
  };
  return api;
}

const text = (t: string, id = 't0'): Piece => ({ id, kind: 'text', text: t });
const usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };

function assemble(parts: RunStreamPart[]): FullStreamPart[] {
  const assembler = new FullStreamAssembler();
  return parts.flatMap((part) => assembler.push(part));
}

function textOf(parts: FullStreamPart[]): string {
  const assembler = new TextStreamAssembler();
  return parts.map((part) => assembler.push(part)).join('');
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function* replay<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

/** A step that streams "Hello, world." in three pieces and then records it. */
function helloRun() {
  return stream()
    .event({ type: 'run-started', agentName: 'a' })
    .event({ type: 'step-started', step: 1 })
    .reset(1, 1)
    .deltas(1, 1, text('Hel'))
    .deltas(1, 1, text('lo, '), text('wor'))
    .deltas(1, 1, text('ld.'))
    .event({ type: 'text', step: 1, text: 'Hello, world.' })
    .event({ type: 'step-finished', step: 1, finishReason: 'stop', usage })
    .event({ type: 'finished', text: 'Hello, world.', finishReason: 'stop', stopReason: 'completed' });
}

describe('full stream', () => {
  it('streams a step’s text in the AI SDK’s parts, and its recorded text adds nothing more', () => {
    const parts = assemble(helloRun().parts);
    expect(parts.map((p) => p.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(parts.find((p) => p.type === 'text-start')).toMatchObject({ offset: 3, step: 1, attempt: 1, id: 't0' });
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => p.offset)).toEqual([3, 4, 4, 5]);
    expect(textOf(parts)).toBe('Hello, world.');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', offset: 8, text: 'Hello, world.', stopReason: 'completed' });
  });

  it('gives text parts from the text event when the run streamed no deltas (streaming off, v0.3.0 runs)', () => {
    const parts = assemble(
      stream()
        .event({ type: 'step-started', step: 1 })
        .event({ type: 'text', step: 1, text: 'Whole answer.' })
        .event({ type: 'step-finished', step: 1, finishReason: 'stop', usage }).parts,
    );
    expect(parts.filter((p) => p.type.startsWith('text-'))).toEqual([
      { offset: 1, type: 'text-start', step: 1, attempt: 0, id: 'step-1-text' },
      { offset: 1, type: 'text-delta', step: 1, attempt: 0, id: 'step-1-text', text: 'Whole answer.' },
      { offset: 1, type: 'text-end', step: 1, attempt: 0, id: 'step-1-text' },
    ]);
    expect(textOf(parts)).toBe('Whole answer.');
  });

  it('a reset mid-text voids the failed attempt: a reset-step part, and the text stream has no duplicated prefix', () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .reset(1, 1)
      .deltas(1, 1, text('The answer i'))
      .reset(1, 2)
      // A late piece of the failed attempt (published before it died) is void.
      .deltas(1, 1, text('s forty'))
      .deltas(1, 2, text('The answer'))
      .deltas(1, 2, text(' is 42.'))
      .event({ type: 'text', step: 1, text: 'The answer is 42.' })
      .event({ type: 'step-finished', step: 1, finishReason: 'stop', usage });
    const parts = assemble(run.parts);
    const resets = parts.filter((p) => p.type === 'reset-step');
    expect(resets).toEqual([{ offset: 3, type: 'reset-step', step: 1, attempt: 2, reason: 'retry' }]);
    // After the reset, the new attempt's parts start over.
    const afterReset = parts.slice(parts.indexOf(resets[0]!) + 1);
    expect(afterReset[0]).toMatchObject({ type: 'text-start', attempt: 2 });
    expect(
      afterReset
        .filter((p) => p.type === 'text-delta')
        .map((p) => p.text)
        .join(''),
    ).toBe('The answer is 42.');
    expect(JSON.stringify(parts)).not.toContain('forty');
    // The text stream yields "The answer i", then only what goes beyond it: joined, the final text once.
    const assembler = new TextStreamAssembler();
    const yielded = parts.map((p) => assembler.push(p)).filter((t) => t !== '');
    expect(yielded).toEqual(['The answer i', 's 42.']);
    expect(yielded.join('')).toBe('The answer is 42.');
  });

  it('a piece of a newer attempt without its reset (the reset was truncated) still voids the older one', () => {
    const parts = assemble(
      stream()
        .event({ type: 'step-started', step: 2 })
        .deltas(2, 1, text('draft'))
        .deltas(2, 3, text('final'))
        .event({ type: 'text', step: 2, text: 'final' }).parts,
    );
    expect(parts.filter((p) => p.type === 'reset-step')).toMatchObject([{ step: 2, attempt: 3, reason: 'retry' }]);
    expect(textOf(parts.slice(parts.findIndex((p) => p.type === 'reset-step')))).toBe('final');
  });

  it('a retry that writes different words: the full stream is exact, the string stream cannot take text back', () => {
    const parts = assemble(
      stream()
        .event({ type: 'step-started', step: 1 })
        .deltas(1, 1, text('Sunny and'))
        .reset(1, 2)
        .deltas(1, 2, text('Rain all day.'))
        .event({ type: 'text', step: 1, text: 'Rain all day.' }).parts,
    );
    const latest = parts.slice(parts.findIndex((p) => p.type === 'reset-step'));
    expect(textOf(latest)).toBe('Rain all day.');
    // Position by position: what was yielded stays, the rest comes from the newest attempt (documented).
    expect(textOf(parts)).toBe('Sunny and' + 'Rain all day.'.slice('Sunny and'.length));
  });

  it('the recorded text supersedes pieces that differ from it (a reset-step part, then the recorded text)', () => {
    const parts = assemble(
      stream()
        .event({ type: 'step-started', step: 1 })
        .deltas(1, 1, text('Hello wrld'))
        .event({ type: 'text', step: 1, text: 'Hello world' }).parts,
    );
    expect(parts.map((p) => p.type)).toEqual([
      'start-step',
      'text-start',
      'text-delta',
      'reset-step',
      'text-start',
      'text-delta',
      'text-end',
    ]);
    expect(parts[3]).toMatchObject({ reason: 'recorded' });
    expect(parts[5]).toMatchObject({ text: 'Hello world' });
  });

  it('completes streamed text the recorded text goes on from (a last batch that never arrived)', () => {
    const parts = assemble(
      stream()
        .event({ type: 'step-started', step: 1 })
        .deltas(1, 1, text('Hello'))
        .event({ type: 'text', step: 1, text: 'Hello there' }).parts,
    );
    expect(parts.filter((p) => p.type === 'text-delta').map((p) => p.text)).toEqual(['Hello', ' there']);
    expect(parts.filter((p) => p.type === 'reset-step')).toEqual([]);
  });

  it('a long streamed text is not replaced by its event’s preview', () => {
    const long = 'word '.repeat(1_000);
    const preview = previewText(long);
    expect(preview.length).toBeLessThan(long.length);
    const parts = assemble(
      stream()
        .event({ type: 'step-started', step: 1 })
        .deltas(1, 1, text(long.slice(0, 3_000)))
        .deltas(1, 1, text(long.slice(3_000)))
        .event({ type: 'text', step: 1, text: preview }).parts,
    );
    expect(parts.filter((p) => p.type === 'reset-step')).toEqual([]);
    expect(textOf(parts)).toBe(long);
    expect(long.slice(0, EVENT_OUTPUT_PREVIEW_CHARS)).toBe(preview.slice(0, EVENT_OUTPUT_PREVIEW_CHARS));
  });

  it('streams tool input: tool-input-start with the tool’s name, deltas, and tool-input-end before the call', () => {
    const parts = assemble(
      stream()
        .event({ type: 'step-started', step: 1 })
        .deltas(1, 1, { id: 'call_1', kind: 'tool-input', text: '{"city":', toolName: 'get_weather' })
        .deltas(
          1,
          1,
          { id: 'call_1', kind: 'tool-input', text: '"Paris"}' },
          { id: 'r', kind: 'reasoning', text: 'hm' },
        )
        .event({ type: 'tool-call', step: 1, toolCallId: 'call_1', toolName: 'get_weather', args: { city: 'Paris' } })
        .event({
          type: 'approval-requested',
          step: 1,
          toolCallId: 'call_1',
          toolName: 'get_weather',
          args: { city: 'Paris' },
          token: 'tok',
        })
        .event({ type: 'step-finished', step: 1, finishReason: 'tool-calls', usage }).parts,
    );
    expect(parts.map((p) => p.type)).toEqual([
      'start-step',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-delta',
      'reasoning-start',
      'reasoning-delta',
      'tool-input-end',
      'tool-call',
      'tool-approval-request',
      'reasoning-end',
      'finish-step',
    ]);
    expect(parts[1]).toMatchObject({ id: 'call_1', toolName: 'get_weather' });
    expect(parts[6]).toMatchObject({ offset: 3, id: 'call_1' });
    expect(parts[8]).toEqual({
      offset: 4,
      type: 'tool-approval-request',
      step: 1,
      approvalId: 'call_1',
      token: 'tok',
      toolCall: { toolCallId: 'call_1', toolName: 'get_weather', input: { city: 'Paris' } },
    });
    expect(textOf(parts)).toBe('');
  });

  it('resumes from any offset, in the middle of a step too: exactly the parts from there, nothing repeated', async () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .reset(1, 1)
      .deltas(1, 1, text('Hel'))
      .reset(1, 2)
      .deltas(1, 2, text('Hello, '))
      .deltas(1, 2, text('world'))
      .event({ type: 'text', step: 1, text: 'Hello, world!' })
      .event({ type: 'step-finished', step: 1, finishReason: 'stop', usage })
      .event({ type: 'finished', text: 'Hello, world!', finishReason: 'stop', stopReason: 'completed' });
    const all = await collect(toFullStream(replay(run.parts)));
    expect(all.at(-1)).toMatchObject({ type: 'finish' });
    for (let from = 0; from <= run.parts.length; from++) {
      const resumed = await collect(toFullStream(replay(run.parts), { from }));
      expect(resumed).toEqual(all.filter((p) => p.offset >= from));
      // A watcher that read [0, from) and then resumed has the whole text once.
      const before = all.filter((p) => p.offset < from);
      expect(textOf([...before, ...resumed])).toBe('Hello, world!');
    }
    expect(await collect(toTextStream(toFullStream(replay(run.parts))))).toEqual(['Hel', 'lo, ', 'world', '!']);
  });

  it('after a truncation marker: says so, and places the pieces it saw in the recorded text', async () => {
    // Items 0..9 were dropped; the watcher sees the rest of step 3 from the middle.
    const parts: RunStreamPart[] = [
      { type: 'truncated', offset: 10, missedFrom: 0 },
      {
        type: 'deltas',
        offset: 10,
        deltas: { type: 'deltas', step: 3, attempt: 1, parts: wireParts([text('lo, wor')]) },
      },
      { type: 'deltas', offset: 11, deltas: { type: 'deltas', step: 3, attempt: 1, parts: wireParts([text('ld')]) } },
      {
        type: 'event',
        offset: 12,
        event: { type: 'text', step: 3, text: 'Hello, world.', seq: 9, at: '2026-12-01T00:00:00.000Z' },
      },
    ];
    const out = await collect(toFullStream(replay(parts)));
    expect(out[0]).toEqual({ offset: 10, type: 'truncated', missedFrom: 0 });
    expect(out.filter((p) => p.type === 'reset-step')).toEqual([]);
    expect(out.filter((p) => p.type === 'text-delta').map((p) => p.text)).toEqual(['lo, wor', 'ld', '.']);
    // Resuming after the gap started, the marker names only what this watcher had not read.
    expect((await collect(toFullStream(replay(parts), { from: 4 })))[0]).toEqual({
      offset: 10,
      type: 'truncated',
      missedFrom: 4,
    });
    // Resuming past it, no marker.
    expect((await collect(toFullStream(replay(parts), { from: 11 }))).some((p) => p.type === 'truncated')).toBe(false);
  });

  it('ignores malformed delta items and pieces (hostile or from a newer version)', () => {
    const assembler = new FullStreamAssembler();
    const bad: unknown[] = [
      null,
      'text',
      { type: 'deltas', step: 'one', attempt: 1, parts: [] },
      { type: 'deltas', step: 1, attempt: 1, parts: 'x' },
      {
        type: 'deltas',
        step: 1,
        attempt: 1,
        parts: [null, { id: 1, kind: 'text', text: 'x' }, { id: 'a', kind: 'code', text: 'x' }],
      },
      { type: 'explode', step: 1, attempt: 9 },
    ];
    const out = bad.flatMap((deltas, offset) => assembler.push({ type: 'deltas', offset, deltas: deltas as never }));
    expect(out).toEqual([]);
  });

  it('ends on finish, abort or error, closing what is open', async () => {
    const failed = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, text('partial'))
      .event({ type: 'failed', message: 'boom', errorType: 'X' })
      .event({ type: 'run-started', agentName: 'never read' });
    const out = await collect(toFullStream(replay(failed.parts)));
    expect(out.slice(-2)).toEqual([
      { offset: 2, type: 'text-end', step: 1, attempt: 1, id: 't0' },
      { offset: 2, type: 'error', error: 'boom', errorType: 'X' },
    ]);
    const cancelled = assemble(stream().event({ type: 'cancelled' }).parts);
    expect(cancelled).toEqual([{ offset: 0, type: 'abort' }]);
    const other = assemble(stream().event({ type: 'continued-as-new', generation: 1 }).parts);
    expect(other).toMatchObject([{ type: 'run-event', event: { type: 'continued-as-new' } }]);
  });

  it('voids streamed text of a step that recorded none (its retry wrote only a tool call and published nothing)', () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, text('Let me thi'))
      .event({ type: 'tool-call', step: 1, toolCallId: 'c1', toolName: 'look', args: {} })
      .event({ type: 'step-finished', step: 1, finishReason: 'tool-calls', usage });
    const parts = assemble(run.parts);
    expect(parts.map((part) => part.type)).toEqual([
      'start-step',
      'text-start',
      'text-delta',
      'reset-step',
      'tool-call',
      'finish-step',
    ]);
    expect(parts.find((part) => part.type === 'reset-step')).toMatchObject({ step: 1, reason: 'recorded' });
  });

  it('passes on that the live stream is unavailable; the recorded text then completes what streamed', () => {
    const run = stream().event({ type: 'step-started', step: 1 }).deltas(1, 1, text('Sunny in '));
    run.parts.push({ type: 'live-unavailable', offset: run.parts.length, reason: 'Redis is down' });
    run.event({ type: 'text', step: 1, text: 'Sunny in Oslo.' });
    const parts = assemble(run.parts);
    expect(parts.find((p) => p.type === 'live-unavailable')).toEqual({
      offset: 2,
      type: 'live-unavailable',
      reason: 'Redis is down',
    });
    expect(parts.some((p) => p.type === 'reset-step')).toBe(false);
    expect(textOf(parts)).toBe('Sunny in Oslo.');
  });
});
