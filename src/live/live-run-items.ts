import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  LIVE_MEMO_KEY,
  RUN_STREAM_TOPICS,
  TERMINAL_EVENT_TYPES,
  decodeStreamData,
  isRunEvent,
} from '../protocol/index.js';
import { RUN_PROTOCOL_MEMO_KEY } from '../protocol/run-protocol.js';
import type { LiveRunRef, LiveStream } from './live-stream.js';

/** One raw item of a run's stream: topic, data (a payload of JSON), offset, as every transport yields them. */
export interface LiveRawItem {
  topic: string;
  data: Payload;
  offset: number;
}

/** How long one blocking read waits before the reader looks whether the run closed. */
const BLOCK_MS = 5_000;

/** How long a reader waits for a running run to say where its live stream is. */
const DESCRIBED_WAIT_MS = 10_000;

/**
 * The run's live stream on Redis, from its memo (describe calls, no worker); undefined on Workflow Streams. A run
 * records its live stream once its worker described its agent (the `describeAgent` local activity, in its first
 * workflow task or the one after): a running run without it yet (started a moment ago, as `streamText` watches) is
 * asked again for up to {@link DESCRIBED_WAIT_MS}. Only a reader configured for Redis asks, so only a deployment whose
 * workers publish to the run's own log while its readers expect Redis waits that long, once per watcher.
 */
export async function liveRunOf(handle: WorkflowHandle): Promise<LiveRunRef | undefined> {
  const deadline = Date.now() + DESCRIBED_WAIT_MS;
  for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
    const described = await handle.describe();
    const firstRunId = described.memo?.[LIVE_MEMO_KEY];
    if (typeof firstRunId === 'string' && firstRunId !== '') return { workflowId: handle.workflowId, firstRunId };
    // Runs of earlier protocols have no live stream; a closed run without the memo never had one.
    const protocol = described.memo?.[RUN_PROTOCOL_MEMO_KEY];
    const legacy = typeof protocol === 'number' && protocol < 4;
    if (legacy || described.status.name !== 'RUNNING' || Date.now() + pause > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** Why a live read ended early: the transport could not be read (Redis down, unreachable, refused). */
export class LiveStreamUnavailableError extends Error {
  override readonly name = 'LiveStreamUnavailableError';

  constructor(
    /** The offset the reader had reached: items before it were read. */
    readonly next: number,
    cause: unknown,
  ) {
    super(`The run's live stream is unavailable (${cause instanceof Error ? cause.message : String(cause)}).`, {
      cause,
    });
  }
}

/**
 * The raw items of a run's live stream on Redis from offset `from`, verified (see RedisLiveStream), in offset order,
 * with a jump in offsets where items were trimmed (the reader makes it a `truncated` part). Ends after the run's
 * terminal event; when the run closed without one reaching Redis, after the stream has been quiet for one blocking
 * read. Pieces of a step's attempt older than one that reset the step (a zombie attempt still writing) are left
 * out, as the run leaves them out on Workflow Streams. Throws {@link LiveStreamUnavailableError} when Redis cannot
 * be read (after the items read so far).
 */
export async function* liveRunItems(
  live: LiveStream,
  run: LiveRunRef,
  from: number,
  options: { signal?: AbortSignal; isClosed: () => Promise<boolean> },
): AsyncGenerator<LiveRawItem> {
  const reader = live.reader(run, from);
  const newestAttempt = new Map<number, number>();
  let next = from;
  try {
    for (;;) {
      if (options.signal?.aborted) return;
      let read;
      try {
        read = await reader.read({ blockMs: BLOCK_MS, ...(options.signal ? { signal: options.signal } : {}) });
      } catch (error) {
        if (options.signal?.aborted) return;
        throw new LiveStreamUnavailableError(next, error);
      }
      if (read.items.length === 0) {
        // Quiet for a whole blocking read: a run that closed has nothing more to publish (its terminal event never
        // reached Redis); read once more, so an item published just before it closed is not missed.
        if (await options.isClosed()) {
          const last = await reader.read().catch((error: unknown) => {
            throw new LiveStreamUnavailableError(next, error);
          });
          for (const item of last.items) yield toRaw(item);
          return;
        }
        continue;
      }
      for (const item of read.items) {
        next = item.offset + 1;
        const data = decodeStreamData(item.data);
        if (item.topic === RUN_STREAM_TOPICS.deltas && staleAttempt(data, newestAttempt)) continue;
        yield { topic: item.topic, data, offset: item.offset };
        if (item.topic === RUN_STREAM_TOPICS.events && isTerminal(data)) return;
      }
    }
  } finally {
    reader.close();
  }
}

function toRaw(item: { topic: string; data: string; offset: number }): LiveRawItem {
  return { topic: item.topic, data: decodeStreamData(item.data), offset: item.offset };
}

function isTerminal(data: Payload): boolean {
  const value = defaultPayloadConverter.fromPayload<unknown>(data);
  return isRunEvent(value) && TERMINAL_EVENT_TYPES.has(value.type);
}

/** Whether a `deltas` item is of an attempt older than the step's newest reset (and records resets). */
function staleAttempt(data: Payload, newest: Map<number, number>): boolean {
  const value = defaultPayloadConverter.fromPayload<unknown>(data) as {
    type?: unknown;
    step?: unknown;
    attempt?: unknown;
  };
  if (typeof value?.step !== 'number' || typeof value.attempt !== 'number') return false;
  const seen = newest.get(value.step) ?? 0;
  if (value.type === 'reset-step') {
    if (value.attempt > seen) newest.set(value.step, value.attempt);
    return value.attempt < seen;
  }
  return value.attempt < seen;
}
