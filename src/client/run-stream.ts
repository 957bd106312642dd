import { setTimeout as delay } from 'node:timers/promises';
import {
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  WorkflowUpdateStage,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, WorkflowNotFoundError, type Payload } from '@temporalio/common';
import {
  STREAM_BUSY_FAILURE,
  STREAM_DRAINING_FAILURE,
  STREAM_OFFSET_QUERY,
  STREAM_POLL_UPDATE,
  STREAM_TRUNCATED_FAILURE,
  TERMINAL_EVENT_TYPES,
  decodeStreamData,
  type RunEvent,
  type StreamPollInput,
  type StreamPollResult,
  type StreamedDeltas,
  type StreamedProgress,
} from '../protocol/index.js';
import { runStreamTailQuery } from '../protocol/run-messages.js';
import { describeExecution } from './history/final-record.js';
import { NoWorkerError } from './errors/no-worker-error.js';
import { WorkerTimeoutError } from './errors/worker-timeout-error.js';
import { recordedStreamFrom } from './history/stream-from-history.js';
import { StreamItemReader } from './stream-items.js';
import { streamLiveRun } from './live-run-stream.js';
import { liveStreamOf } from '../live/live-clients.js';
import { liveRunOf } from '../live/live-run-items.js';
import { throughWorker } from './through-worker.js';

export { RunWithoutStreamError } from './errors/run-without-stream-error.js';

/**
 * One item of a run's stream, with its offset. Offsets are global across topics and go on across continue-as-new:
 * `run.stream({ from: part.offset + 1 })` resumes after `part` with nothing missed or repeated.
 */
export type RunStreamPart =
  | { type: 'event'; offset: number; event: RunEvent }
  | { type: 'progress'; offset: number; progress: StreamedProgress }
  /**
   * Model output of a step's attempt as it is written, or a `reset-step` (drop that step's earlier attempts'
   * pieces). The step's `text` and `tool-call` events supersede its pieces.
   */
  | { type: 'deltas'; offset: number; deltas: StreamedDeltas }
  /**
   * The items `[missedFrom, offset)` were dropped from the run's bounded log before this watcher read them (it fell
   * behind by more than the run keeps). Never a silent jump: read `run.state()` or the transcript for what they held.
   */
  | { type: 'truncated'; offset: number; missedFrom: number }
  /**
   * The run's live stream on Redis could not be read (Redis down or unreachable): no more model output or progress
   * comes live. The run's events after the last one read follow, from the run itself (each step's final text, the
   * run's end), with offsets after this one that are not the live stream's: resume from the start or by event `seq`.
   */
  | { type: 'live-unavailable'; offset: number; reason: string };

/** Options of `run.stream()`. */
export interface RunStreamOptions {
  /** First offset to read (default 0: from the oldest item the run still holds). */
  from?: number;
  /** Ends the iteration quietly when aborted. */
  signal?: AbortSignal;
}

/** Parts one shared subscription keeps for watchers that are behind; older ones become a `truncated` part. */
const FEED_BUFFER = 10_000;
/** How long a worker gets to answer the tail query (of a closed run: before its final record is read instead). */
const TAIL_TIMEOUT_MS = 5_000;
/** How long a closed run whose tail query went unanswered is read from its record at once (no worker asked). */
const UNANSWERED_TAIL_MEMORY_MS = 60_000;
/** Closed runs whose tail query nobody answered, by client and workflow id: until when to skip asking. */
const unansweredTails = new WeakMap<object, Map<string, number>>();
/** Pause between subscription restarts (a closed poll, a run that continued as new). */
const RESUBSCRIBE_DELAY_MS = 100;

/**
 * One long-poll subscription to a run's stream, shared by every watcher in this process that reads from an offset
 * it still holds: each poll that returns items is an Update in the run's history, so ten watchers must not make ten
 * times the history. Ends after the run's terminal event or when the run is closed and its last items are read.
 */
class RunFeed {
  readonly startOffset: number;
  private readonly parts: RunStreamPart[] = [];
  /** Parts dropped from the front of {@link parts}. */
  private dropped = 0;
  private done = false;
  private error: unknown;
  private wake: (() => void)[] = [];
  watchers = 0;

  constructor(
    private readonly handle: WorkflowHandle,
    from: number,
    private readonly onEnd: () => void,
  ) {
    this.startOffset = from;
    void this.run(from);
  }

  get ended(): boolean {
    return this.done;
  }

  /** The part at absolute index `index` (counting parts since the feed started), if it arrived. */
  at(index: number): RunStreamPart | 'gone' | undefined {
    if (index < this.dropped) return 'gone';
    return this.parts[index - this.dropped];
  }

  get length(): number {
    return this.dropped + this.parts.length;
  }

  /** Index of the first part at or after `offset` (parts are in offset order). */
  indexOf(offset: number): number {
    const i = this.parts.findIndex((part) => part.offset >= offset);
    return i === -1 ? this.length : this.dropped + i;
  }

  get failure(): unknown {
    return this.error;
  }

  /** Resolves when a part arrives or the feed ends. */
  next(): Promise<void> {
    return new Promise((resolve) => this.wake.push(resolve));
  }

  private push(part: RunStreamPart): void {
    this.parts.push(part);
    if (this.parts.length > FEED_BUFFER) {
      this.parts.shift();
      this.dropped++;
    }
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = [];
    for (const resolve of wake) resolve();
  }

  /**
   * Reads the run: catches up with the tail query (a query: it costs the run no history), then long-polls for what
   * comes next, from the offset it reached. Every poll's result is recorded in the run's history, so a poll asks only
   * for new items, and a poll the run refuses (its watchers' history budget is spent, `StreamBusy`) is waited out
   * with tail queries. After a continue-as-new the loop goes on on the (unpinned) handle: the new execution carries
   * the log and the offsets.
   */
  private async run(from: number): Promise<void> {
    let expected = from;
    let busy = 0;
    let catchUp = true;
    try {
      for (;;) {
        if (catchUp) {
          expected = await this.catchUp(expected);
          catchUp = false;
          if (this.terminal || this.watchers === 0) return;
        }
        let result: StreamPollResult;
        try {
          // No pause between polls: a parked poll costs the run nothing until an item comes, and a pause would
          // delay the item published during it by up to the pause.
          const update = await this.handle.startUpdate<StreamPollResult, [StreamPollInput]>(STREAM_POLL_UPDATE, {
            args: [{ topics: [], from_offset: expected }],
            waitForStage: WorkflowUpdateStage.ACCEPTED,
          });
          result = await update.result();
        } catch (error) {
          const refused = refusalOf(error);
          if (refused === STREAM_BUSY_FAILURE) {
            // The run keeps its history for its own items: read with the tail query a moment later instead.
            await delay(busyWait(++busy));
            catchUp = true;
            continue;
          }
          if (refused === STREAM_DRAINING_FAILURE || refused === STREAM_TRUNCATED_FAILURE) {
            await delay(RESUBSCRIBE_DELAY_MS);
            catchUp = true;
            continue;
          }
          if (!isPollEnded(error)) throw error;
          // The execution closed under the poll: it continued as new (go on) or the run ended (its tail below).
          if ((await this.handle.describe()).status.name !== 'RUNNING') break;
          catchUp = true;
          continue;
        }
        busy = 0;
        for (const item of result.items) {
          expected = this.accept(item.topic, decodeStreamData(item.data), item.offset, expected);
          if (this.terminal) return;
        }
        if (this.watchers === 0) return;
      }
      // The run closed: what its last workflow task published may have come after every poll. A worker answers
      // with every item its run still holds; with none answering, the run's final record has its events.
      if (!this.terminal) await this.readTail(expected);
    } catch (error) {
      this.error = error;
    } finally {
      this.done = true;
      this.onEnd();
      this.notify();
    }
  }

  /**
   * The items from `expected` of a running run, by the tail query; returns the next offset. With no worker to
   * answer in time, nothing is read here: the poll that follows waits for one, as it would anyway.
   */
  private async catchUp(expected: number): Promise<number> {
    const position = { next: expected };
    try {
      await this.readTailQuery(position);
    } catch (error) {
      if (!isUnanswered(error)) throw error;
    }
    return position.next;
  }

  /**
   * Reads the stream tail query from `position.next` until it holds nothing more (or the terminal event), moving
   * `position.next` on with every item (so a caller that catches a failure knows what was read). Throws
   * `NoWorkerError`/`WorkerTimeoutError` when no worker answers within {@link TAIL_TIMEOUT_MS}.
   */
  private async readTailQuery(position: { next: number }): Promise<void> {
    for (let more = true; more && !this.terminal; ) {
      const from = position.next;
      const tail = await throughWorker(this.handle, () => this.handle.query(runStreamTailQuery, from), {
        request: 'the stream tail query',
        timeoutMs: TAIL_TIMEOUT_MS,
      });
      for (const item of tail.items) {
        position.next = this.accept(item.topic, decodeStreamData(item.data), item.offset, position.next);
      }
      more = tail.items.length > 0 && position.next < tail.nextOffset;
    }
  }

  private terminal = false;

  /**
   * The items from `expected` of a run that closed: from the stream tail query while a worker answers it (within
   * {@link TAIL_TIMEOUT_MS}); else, for a run that recorded where its events sit in its stream, from its final
   * record: its events, which close the steps whose deltas and progress they stand in for (no worker needed).
   */
  private async readTail(expected: number): Promise<void> {
    const position = { next: expected };
    const key = this.handle.workflowId;
    const remembered = unansweredTails.get(this.handle.client) ?? new Map<string, number>();
    unansweredTails.set(this.handle.client, remembered);
    // A closed run whose tail query nobody answered a moment ago goes to its record at once.
    if ((remembered.get(key) ?? 0) <= Date.now()) {
      try {
        await this.readTailQuery(position);
        return;
      } catch (error) {
        if (!isUnanswered(error)) throw error;
        remembered.set(key, Date.now() + UNANSWERED_TAIL_MEMORY_MS);
        if (remembered.size > 1_000) remembered.delete(remembered.keys().next().value!);
        if (!(await this.readRecord(position.next))) throw error;
        return;
      }
    }
    if (!(await this.readRecord(position.next))) {
      throw new Error(`Run '${key}' has closed and recorded no stream section; a worker must answer its tail query.`);
    }
  }

  /** The items from `next` of a closed run, from its final record; false when it has no stream section. */
  private async readRecord(next: number): Promise<boolean> {
    const described = await describeExecution(this.handle.client, this.handle.workflowId, undefined);
    const record = await described.finalRecord();
    const rest = record ? recordedStreamFrom(record, next) : undefined;
    if (!rest) return false;
    for (const part of rest) {
      this.push(part);
      if (part.type === 'event' && TERMINAL_EVENT_TYPES.has(part.event.type)) this.terminal = true;
    }
    return true;
  }

  /** Adds an item as its parts (after a `truncated` part when items were skipped); returns the next expected offset. */
  private accept(topic: string, data: Payload, offset: number, expected: number): number {
    const reader = new StreamItemReader(expected);
    for (const part of reader.read({ topic, data, offset })) {
      this.push(part);
      if (part.type === 'event' && TERMINAL_EVENT_TYPES.has(part.event.type)) this.terminal = true;
    }
    return reader.next;
  }
}

/** No worker answered the tail query in time. */
function isUnanswered(error: unknown): boolean {
  return NoWorkerError.isInstance(error) || WorkerTimeoutError.isInstance(error);
}

/** The failure type a poll was refused or failed with by the run (workflows/run-stream.ts), if it was. */
function refusalOf(error: unknown): string | undefined {
  if (!(error instanceof WorkflowUpdateFailedError) || !(error.cause instanceof ApplicationFailure)) return undefined;
  return error.cause.type ?? undefined;
}

/** A poll that ended without an answer because its execution closed (continued as new, ended, was cancelled). */
function isPollEnded(error: unknown): boolean {
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || error instanceof WorkflowNotFoundError) return true;
  if (!(error instanceof WorkflowUpdateFailedError)) return false;
  return (
    error.cause instanceof CancelledFailure ||
    (error.cause instanceof ApplicationFailure && error.cause.type === 'AcceptedUpdateCompletedWorkflow')
  );
}

/** How long to wait before reading a busy run again: growing to 2 s, jittered so waiting watchers spread out. */
function busyWait(attempt: number): number {
  return Math.min(2_000, 100 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
}

const feeds = new WeakMap<object, Map<string, RunFeed>>();

/**
 * The parts of a run's stream from `options.from`, as they are published. Shares one subscription per run in this
 * process with other watchers reading from an offset it holds. Ends after the terminal event.
 */
export async function* streamRun(
  handle: WorkflowHandle,
  options: RunStreamOptions = {},
): AsyncGenerator<RunStreamPart> {
  // A client configured with a live stream (Redis) reads a run that publishes there from it (the run's memo says).
  const live = liveStreamOf(handle.client);
  const liveRun = live ? await liveRunOf(handle) : undefined;
  if (live && liveRun) {
    yield* streamLiveRun(live, liveRun, handle, options, (fallback) => streamWorkflowRun(handle, fallback));
    return;
  }
  yield* streamWorkflowRun(handle, options);
}

/** The parts of a run's stream from its Workflow Streams log (see {@link streamRun}). */
async function* streamWorkflowRun(handle: WorkflowHandle, options: RunStreamOptions): AsyncGenerator<RunStreamPart> {
  const from = Math.max(0, Math.trunc(options.from ?? 0));
  const feed = feedFor(handle, from);
  feed.watchers++;
  const { signal } = options;
  const aborted = signal
    ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
    : undefined;
  try {
    let index = feed.indexOf(from);
    let position = from;
    for (;;) {
      if (signal?.aborted) return;
      const part = feed.at(index);
      if (part === 'gone') {
        // This watcher fell behind the shared buffer: say so, and go on from the oldest part still held.
        index = feed.length - FEED_BUFFER;
        const next = feed.at(index);
        if (next && next !== 'gone') yield { type: 'truncated', offset: next.offset, missedFrom: position };
        continue;
      }
      if (part) {
        index++;
        if (part.offset < from) continue;
        position = part.offset + 1;
        yield part.type === 'truncated' && part.missedFrom < from ? { ...part, missedFrom: from } : part;
        continue;
      }
      if (feed.ended) {
        if (feed.failure !== undefined) throw feed.failure as Error;
        return;
      }
      await (aborted ? Promise.race([feed.next(), aborted]) : feed.next());
    }
  } finally {
    feed.watchers--;
  }
}

/** The shared feed of a run that still holds `from`, or a new one (shared from then on). */
function feedFor(handle: WorkflowHandle, from: number): RunFeed {
  let byRun = feeds.get(handle.client);
  if (!byRun) feeds.set(handle.client, (byRun = new Map()));
  const key = handle.workflowId;
  const shared = byRun.get(key);
  if (shared && !shared.ended && shared.startOffset <= from && shared.indexOf(from) >= shared.length - FEED_BUFFER) {
    return shared;
  }
  // A watcher reading from before the shared feed's start gets a feed of its own; the newest feed is the one shared.
  const feed = new RunFeed(handle, from, () => {
    if (byRun.get(key) === feed) byRun.delete(key);
  });
  byRun.set(key, feed);
  return feed;
}

/**
 * Whether the run has a stream: its offset query answers. A run started before 0.4.0 registers no such query (the
 * SDK says so with `QueryNotRegisteredError`, or a failed query naming the unknown type).
 */
export async function hasStream(
  ask: <T>(call: () => Promise<T>) => Promise<T>,
  handle: WorkflowHandle,
): Promise<boolean> {
  try {
    await ask(() => handle.query<number>(STREAM_OFFSET_QUERY));
    return true;
  } catch (error) {
    if (
      error instanceof Error &&
      (error.name === 'QueryNotRegisteredError' || /unknown queryType|not registered/i.test(error.message))
    ) {
      return false;
    }
    throw error;
  }
}

/**
 * `run.events()` of a run with a stream: its `events` topic from the oldest item held, skipping `seq <= after`.
 * When the events after `after` were truncated from the stream, they are read from the events query first (the
 * execution still holds them), so reconnecting with the last seen `seq` misses nothing and repeats nothing.
 *
 * On Redis a `tool-progress` event carries the `seq` of the run event before it (see `LiveProgressEvents`): such
 * events after the event `after` are shown, so a watcher reconnecting with the `seq` of one of them may get the
 * yields since that run event again (their `progressSeq` tells them apart).
 */
export async function* eventsFromStream(
  handle: WorkflowHandle,
  readEvents: (after: number) => Promise<RunEvent[]>,
  options: { after?: number; signal?: AbortSignal | undefined },
): AsyncGenerator<RunEvent> {
  let after = options.after ?? 0;
  // Whether the event `after` was read (or is before the run's first): a `tool-progress` event of the same seq then
  // comes after it, one Redis made (on Workflow Streams no two events share a seq).
  let passed = after === 0;
  for await (const part of streamRun(handle, options.signal ? { signal: options.signal } : {})) {
    if (part.type !== 'event') continue;
    const sameSeqProgress = passed && part.event.type === 'tool-progress' && part.event.seq === after;
    if (part.event.seq === after) passed = true;
    if (part.event.seq <= after && !sameSeqProgress) continue;
    passed = true;
    while (part.event.seq > after + 1) {
      const missed = (await readEvents(after)).filter((event) => event.seq < part.event.seq);
      if (missed.length === 0) break;
      for (const event of missed) {
        after = event.seq;
        yield event;
      }
    }
    after = part.event.seq;
    yield part.event;
    if (TERMINAL_EVENT_TYPES.has(part.event.type)) return;
  }
}
