// Raw items of a run's stream log, as any transport yields them, read into the run stream's parts: the seam under
// the one assembler, so a transport other than the run's own poll (a Redis stream) is read exactly the same way.
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { toFullStream, toTextStream } from '../../src/client/full-stream.js';
import { partsOfItems, StreamItemReader, type RawStreamItem } from '../../src/client/stream-items.js';
import type { RunEventBody } from '../../src/protocol/index.js';

let seq = 0;
const item = (topic: string, offset: number, value: unknown): RawStreamItem => ({
  topic,
  offset,
  data: defaultPayloadConverter.toPayload(value),
});
const event = (offset: number, body: RunEventBody) =>
  item('events', offset, { ...body, seq: ++seq, at: '2026-01-01T00:00:00Z' });
const text = (offset: number, attempt: number, piece: string) =>
  item('deltas', offset, { type: 'deltas', step: 1, attempt, parts: [{ type: 'text-delta', id: 't0', text: piece }] });

async function* from<T>(values: T[]): AsyncGenerator<T> {
  yield* values;
}

describe('raw stream items', () => {
  it('reads each topic into its part, in order, and skips items it already read', () => {
    const reader = new StreamItemReader();
    const parts = [
      event(0, { type: 'run-started', agentName: 'a' }),
      item('progress', 1, { toolCallId: 'c1', seq: 1, value: 'half', attempt: 1 }),
      text(2, 1, 'Hi'),
      text(2, 1, 'Hi'),
      item('some-other-topic', 3, { anything: true }),
      event(4, { type: 'cancelled' }),
    ].flatMap((raw) => reader.read(raw));
    expect(parts.map((part) => `${part.offset}:${part.type}`)).toEqual([
      '0:event',
      '1:progress',
      '2:deltas',
      '4:event',
    ]);
    expect(reader.next).toBe(5);
  });

  it('says which items it missed when the offsets jump (a trimmed log), never a silent gap', () => {
    const reader = new StreamItemReader(3);
    expect(reader.read(event(7, { type: 'step-started', step: 1 }))).toMatchObject([
      { type: 'truncated', offset: 7, missedFrom: 3 },
      { type: 'event', offset: 7 },
    ]);
  });

  it('feeds the one assembler: a retried attempt is undone and the text equals the recorded one', async () => {
    const items = [
      event(0, { type: 'run-started', agentName: 'a' }),
      event(1, { type: 'step-started', step: 1 }),
      text(2, 1, 'The ans'),
      item('deltas', 3, { type: 'reset-step', step: 1, attempt: 2 }),
      text(4, 2, 'The answer'),
      event(5, { type: 'text', step: 1, text: 'The answer is 42.' }),
      event(6, {
        type: 'step-finished',
        step: 1,
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      }),
      event(7, { type: 'finished', text: 'The answer is 42.', finishReason: 'stop', stopReason: 'done' }),
    ];
    const full = [];
    for await (const part of toFullStream(partsOfItems(from(items)))) full.push(part);
    expect(full.filter((part) => part.type === 'reset-step')).toHaveLength(1);
    let said = '';
    for await (const piece of toTextStream(from(full))) said += piece;
    expect(said).toBe('The answer is 42.');
  });
});
