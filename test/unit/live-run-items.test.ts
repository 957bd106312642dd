// A step's model output and a tool's progress through the Redis live stream, as activities publish them
// (DeltaPublisher and LiveRunPublisher) and watchers read them (liveRunItems), against a real redis-server: resets
// of retried attempts, a zombie attempt's pieces left out, the end at the terminal event or at a closed run, and an
// explicit error when Redis is away.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveRunPublisher } from '../../src/live/live-run-publisher.js';
import { LiveStreamUnavailableError, liveRunItems, type LiveRawItem } from '../../src/live/live-run-items.js';
import type { LiveRunRef } from '../../src/live/live-stream.js';
import { RedisLiveStream } from '../../src/live/redis-live-stream.js';
import type { RunEvent } from '../../src/protocol/index.js';
import { DeltaPublisher } from '../../src/runtime/delta-publisher.js';
import { startRedis, type TestRedis } from '../support/redis.js';

const KEY = 'unit-test-stream-key-0123456789';
let server: TestRedis;
let live: RedisLiveStream;

beforeAll(async () => {
  server = await startRedis();
  live = new RedisLiveStream({ url: server.url, key: KEY });
});

afterAll(async () => {
  await live?.close();
  await server?.close();
});

function newRun(): LiveRunRef {
  return { workflowId: `run-${randomUUID()}`, firstRunId: randomUUID() };
}

function valueOf(item: LiveRawItem): unknown {
  return defaultPayloadConverter.fromPayload(item.data);
}

async function collect(items: AsyncIterable<LiveRawItem>): Promise<LiveRawItem[]> {
  const out: LiveRawItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const finished: RunEvent = { seq: 9, type: 'finished', at: new Date(0).toISOString(), text: 'Hello world' } as RunEvent;

describe('live run items', () => {
  it('carry a retried step: the reset before the new attempt, a zombie attempt left out, the end at the terminal event', async () => {
    const run = newRun();
    const first = new DeltaPublisher({
      token: 't',
      step: 1,
      attempt: 1,
      intervalMs: 20,
      publisher: new LiveRunPublisher(live, run, 1),
    });
    first.onDelta({ type: 'text', id: 'a', delta: 'Hel' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first attempt's worker was killed mid-answer: the retry writes the whole answer.
    const second = new DeltaPublisher({
      token: 't',
      step: 1,
      attempt: 2,
      intervalMs: 20,
      publisher: new LiveRunPublisher(live, run, 2),
    });
    second.onDelta({ type: 'text', id: 'a', delta: 'Hello' });
    second.onDelta({ type: 'text', id: 'a', delta: ' world' });
    await second.close();
    // The first attempt was only presumed dead: what it writes now is left out.
    first.onDelta({ type: 'text', id: 'a', delta: 'p me' });
    await first.close();
    await new LiveRunPublisher(live, run, 1).publish([{ topic: 'events', value: finished }]);

    const items = await collect(liveRunItems(live, run, 0, { isClosed: async () => false }));
    const values = items.map(valueOf);
    expect(values[0]).toEqual({
      type: 'deltas',
      step: 1,
      attempt: 1,
      parts: [
        { type: 'text-start', id: 'a' },
        { type: 'text-delta', id: 'a', text: 'Hel' },
      ],
    });
    expect(values[1]).toEqual({ type: 'reset-step', step: 1, attempt: 2 });
    const text = values
      .slice(2)
      .filter(
        (value): value is { type: 'deltas'; parts: { text: string }[] } =>
          (value as { type?: string }).type === 'deltas',
      )
      .flatMap((value) => value.parts.map((part) => part.text))
      .join('');
    expect(text).toBe('Hello world');
    expect(values.at(-1)).toEqual(finished);
    // Dense offsets, but for the zombie's piece, which sat between the answer and the terminal event.
    const offsets = items.map((item) => item.offset);
    expect(offsets.slice(0, -1)).toEqual(offsets.slice(0, -1).map((_, i) => i));
    expect(offsets.at(-1)).toBe(offsets.at(-2)! + 2);
  });

  it('carries tool progress without the run token, with the attempt', async () => {
    const run = newRun();
    await new LiveRunPublisher(live, run, 3).publish([
      { topic: 'progress', value: { toolCallId: 'c1', seq: 1, value: 'half', token: 'secret', attempt: 1 } },
    ]);
    await new LiveRunPublisher(live, run, 3).publish([{ topic: 'events', value: finished }]);
    const items = await collect(liveRunItems(live, run, 0, { isClosed: async () => false }));
    expect(items.map(valueOf)).toEqual([{ toolCallId: 'c1', seq: 1, value: 'half', attempt: 3 }, finished]);
  });

  it('ends when the run closed and the stream stays quiet', async () => {
    const run = newRun();
    await new LiveRunPublisher(live, run, 1).publish([
      { topic: 'events', value: { ...finished, type: 'step-finished' } },
    ]);
    const started = Date.now();
    const items = await collect(liveRunItems(live, run, 0, { isClosed: async () => true }));
    expect(items).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('says the live stream is unavailable when Redis is away, after what it read', async () => {
    const own = await startRedis();
    const transport = new RedisLiveStream({ url: own.url, key: KEY });
    try {
      const run = newRun();
      await new LiveRunPublisher(transport, run, 1).publish([{ topic: 'deltas', value: { step: 1, parts: [] } }]);
      const iterator = liveRunItems(transport, run, 0, { isClosed: async () => false });
      expect((await iterator.next()).value?.offset).toBe(0);
      await own.stop();
      const error: unknown = await iterator.next().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(LiveStreamUnavailableError);
      expect((error as LiveStreamUnavailableError).next).toBe(1);
      // Publishing while Redis is down neither throws nor hangs: it is logged and counted.
      const started = Date.now();
      await new LiveRunPublisher(transport, run, 1).publish([{ topic: 'events', value: finished }]);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(transport.failures.publish).toBe(1);
    } finally {
      await transport.close();
      await own.close();
    }
  });
});
