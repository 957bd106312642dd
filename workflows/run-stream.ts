import {
  ApplicationFailure,
  condition,
  defaultPayloadConverter,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  setHandler,
  upsertMemo,
  uuid4,
} from '@temporalio/workflow';
import {
  MAX_DELTA_ID_CHARS,
  MAX_DELTA_PARTS,
  MAX_DELTA_PUBLISH_BYTES,
  RUN_STREAM_TOPICS,
  STREAM_BUSY_FAILURE,
  STREAM_DRAINING_FAILURE,
  STREAM_OFFSET_QUERY,
  STREAM_POLL_UPDATE,
  STREAM_PUBLISH_SIGNAL,
  STREAM_TRUNCATED_FAILURE,
  WATCHED_FRESH_MS,
  WATCHED_MEMO_KEY,
  WATCHED_RENEW_MS,
  decodeStreamData,
  encodeStreamData,
  jsonBytes,
  previewOutput,
  type DeltaPart,
  type DeltaPublish,
  type FinalStreamRecord,
  type JsonValue,
  type ProgressPublish,
  type RunEvent,
  type RunStreamTail,
  type StreamPollInput,
  type StreamPollResult,
  type StreamPublishInput,
  type StreamState,
  type StreamWireItem,
  type StreamedDeltas,
  type StreamedProgress,
  type ToolProgress,
} from '../src/protocol/index.js';
import { runStreamTailQuery, toolProgressSignal } from '../src/protocol/run-messages.js';

const publishSignal = defineSignal<[StreamPublishInput]>(STREAM_PUBLISH_SIGNAL);
const pollUpdate = defineUpdate<StreamPollResult, [StreamPollInput]>(STREAM_POLL_UPDATE);
const offsetQuery = defineQuery<number>(STREAM_OFFSET_QUERY);

/**
 * The in-memory log is truncated to its newest {@link KEEP_ITEMS} items once it holds {@link MAX_ITEMS}, and carried
 * over continue-as-new with at most {@link CARRIED_ITEMS} (the same bound as the carried event log). A watcher that
 * falls further behind is told so (its poll fails with `TruncatedOffset`), never silently skipped.
 */
const MAX_ITEMS = 2_000;
const KEEP_ITEMS = 1_000;
export const CARRIED_ITEMS = 1_000;
/** Entries one publish signal may carry: the newest are kept (progress is latest-wins; a reporter sends one at a time). */
const MAX_ENTRIES_PER_PUBLISH = 64;
/**
 * Polls the run lets wait at once. Temporal admits 10 updates in flight per run (`maxInFlightUpdates`), and a parked
 * poll holds one for as long as it waits: approvals, client-side results and MCP questions, which are updates too,
 * must always find room. Watchers in one process share one poll, so this is the number of processes that wait on the
 * run live at once. A poll that comes when all are taken releases the oldest (a watcher that went away leaves its
 * poll parked: Temporal has no way to withdraw an update), within the history budget below.
 */
export const MAX_POLLS_IN_FLIGHT = 5;
/** A poll parked longer than this is released (answered with no items) when another poll comes. */
export const POLL_LIFETIME_MS = 60_000;
/** Topics a poll may filter on (the run has three). */
const MAX_POLL_TOPICS = 8;
/** Events whose stream offset is kept (the final record holds fewer: it is bounded to 256 KiB). */
const MAX_EVENT_OFFSETS = 5_000;
/** Items the tail query returns at once, and their bytes at most (a query's answer is one gRPC message). */
const MAX_TAIL_ITEMS = 1_000;
const MAX_TAIL_BYTES = 1_000_000;
/** Bytes of items one poll returns at most: the rest is `more_ready`. */
const MAX_POLL_RESULT_BYTES = 256 * 1024;
/**
 * What a poll adds to the run's history besides its items: its update's accepted and completed events (the
 * request, the outcome's envelope). Charged to the {@link WatchBudget} with the items it returns.
 */
export const POLL_EVENT_BYTES = 512;
/**
 * The history budget of watchers (bytes). Every poll's result is recorded in the run's history, so watchers, however
 * often they come back, may add only this much beyond what the run publishes: the budget starts at
 * {@link WATCH_BUDGET_START}, earns {@link WATCH_BUDGET_PER_ITEM}× each item the run appends (with its poll's events:
 * live delivery to that many processes is never refused), and {@link WATCH_BUDGET_PER_SECOND} per second of workflow
 * time up to {@link WATCH_BUDGET_TIME_TOTAL} per execution; it never holds more than {@link WATCH_BUDGET_MAX}. A poll
 * it cannot pay for is refused (`StreamBusy`) before anything is recorded; the project's client then reads the
 * run's items with the tail query, which costs no history (src/client/run-stream.ts).
 */
export const WATCH_BUDGET_START = 256 * 1024;
export const WATCH_BUDGET_PER_ITEM = 4;
export const WATCH_BUDGET_PER_SECOND = 256;
export const WATCH_BUDGET_TIME_TOTAL = 2 * 1024 * 1024;
export const WATCH_BUDGET_MAX = 1024 * 1024;
/**
 * Bytes of `deltas` items the in-memory log holds at most (besides {@link MAX_ITEMS}): past it, the oldest items are
 * truncated, which are those of finished steps (whose final message, on the `events` topic, stands in for them)
 * unless one step alone wrote more.
 */
const MAX_DELTA_LOG_BYTES = 2_000_000;

/**
 * An item of the log: its wire form, its bytes on the wire (base64 and topic are ASCII), and the bytes of every item
 * appended before it in this execution (so the bytes from any offset to the end cost one subtraction).
 */
interface LogItem {
  topic: string;
  data: string;
  bytes: number;
  before: number;
}

/** A poll waiting for items: where it reads from, since when, and whether it was released. */
interface ParkedPoll {
  from: number;
  since: number;
  released: boolean;
}

/** A running call that may publish progress: its token, and the newest attempt seen publishing. */
interface OpenCall {
  token: string;
  attempt: number;
}

/**
 * A running step that may publish model deltas: its token, the newest attempt that published, and the last sequence
 * of each publisher of that attempt (a publisher resends a batch whose signal it could not confirm).
 */
interface OpenStep {
  token: string;
  attempt: number;
  sequences: Map<string, number>;
}
/** Publishers one attempt of a step may have (its activity has one; the token's holders are the run's own). */
const MAX_PUBLISHERS_PER_ATTEMPT = 4;

/**
 * The history bytes watchers may still add (see {@link WATCH_BUDGET_START}). Changed only in update handlers and
 * when items are appended, both of which replay; validators read it and change nothing.
 */
class WatchBudget {
  private bytes = WATCH_BUDGET_START;
  /** When the budget began to earn by time: what time earned is a function of the time since then. */
  private readonly since = Date.now();
  /** What time earned that {@link bytes} holds already. */
  private timeEarned = 0;

  /** What the budget holds now (time earned so far included), without changing it. */
  available(now = Date.now()): number {
    return Math.min(WATCH_BUDGET_MAX, this.bytes + this.earnedSince(now));
  }

  /** An item was appended: live delivery of it to a few processes is paid for. */
  earnItem(bytes: number): void {
    this.settle();
    this.bytes = Math.min(WATCH_BUDGET_MAX, this.bytes + WATCH_BUDGET_PER_ITEM * (bytes + POLL_EVENT_BYTES));
  }

  /** A poll completed and put `bytes` into history. */
  spend(bytes: number): void {
    this.settle();
    this.bytes -= bytes;
  }

  /**
   * What time earned since the last settle. Counted from {@link since}, not from the last settle, so that settling
   * often (an item every few milliseconds) loses no fraction of a byte each time.
   */
  private earnedSince(now: number): number {
    const total = Math.floor((Math.max(0, now - this.since) / 1_000) * WATCH_BUDGET_PER_SECOND);
    return Math.min(WATCH_BUDGET_TIME_TOTAL, total) - this.timeEarned;
  }

  private settle(): void {
    const now = Date.now();
    this.bytes = this.available(now);
    this.timeEarned += this.earnedSince(now);
  }
}

/**
 * The run's one stream (since 0.4.0, `PATCHES.runStream`): every run event on the `events` topic, tool progress on
 * the `progress` topic, model deltas on `deltas`. It speaks Workflow Streams' wire protocol (src/protocol/stream-wire.ts)
 * so that any language's Workflow Streams client can read it, with the bounds a run needs:
 *
 * - Publishing takes only what the run's own activities send: `progress` items carrying the token this run gave the
 *   call's `executeTool` input (a capability recorded in the run's history only), from the call's newest attempt,
 *   while the call runs; `deltas` publishes with the running step's token, from its newest attempt, with a
 *   `reset-step` item when a newer attempt publishes than the last one that did. Anything else is dropped.
 * - Watching writes to the run's history only within the {@link WatchBudget}: a poll's result is recorded, so a
 *   watcher that reconnects in a loop could otherwise grow the run until Temporal ends it. The project's client
 *   catches up with the tail query (no history) and polls only for what comes next.
 * - At most {@link MAX_POLLS_IN_FLIGHT} polls wait; a newcomer releases the oldest, so polls whose watchers left
 *   never lock out the next watcher.
 */
export class RunStream {
  private readonly log: LogItem[];
  private baseOffset: number;
  private readonly calls = new Map<string, OpenCall>();
  private readonly steps = new Map<number, OpenStep>();
  /** The `deltas` items of the log, oldest first: offset and bytes (for {@link MAX_DELTA_LOG_BYTES}). */
  private readonly deltaItems: { offset: number; bytes: number }[] = [];
  private deltaBytes = 0;
  private dropped = 0;
  private draining = false;
  /** Polls waiting for items, oldest first. */
  private readonly parked: ParkedPoll[] = [];
  private readonly budget = new WatchBudget();
  /** Bytes of every item appended in this execution (carried ones included): see {@link LogItem.before}. */
  private appendedBytes = 0;
  /** Whether polls renew the run's watched memo (`PATCHES.watchedDeltas`), and when it was last renewed. */
  private announcing = false;
  private announcedAt = Number.NEGATIVE_INFINITY;
  /** The stream offset of each event the run published (and of the carried ones), by `seq`: for the final record. */
  private readonly eventOffsets = new Map<number, number>();

  constructor(
    prior: StreamState | undefined,
    /** Applies a checked yield to the run (state query, `tool-progress` event); false when it is not newer. */
    private readonly applyProgress: (progress: ToolProgress) => boolean,
  ) {
    this.baseOffset = Number.isSafeInteger(prior?.base_offset) ? prior!.base_offset : 0;
    this.log = (prior?.log ?? []).map(({ topic, data }) => {
      const bytes = data.length + topic.length;
      this.appendedBytes += bytes;
      return { topic, data, bytes, before: this.appendedBytes - bytes };
    });
    this.log.forEach((item, index) => {
      if (item.topic !== RUN_STREAM_TOPICS.events) return;
      const seq = decodeSeq(item.data);
      if (seq !== undefined) this.eventOffsets.set(seq, this.baseOffset + index);
    });
    setHandler(publishSignal, (input) => this.receive(input));
    setHandler(pollUpdate, (input) => this.poll(input), { validator: (input) => this.checkPoll(input) });
    setHandler(offsetQuery, () => this.endOffset);
    // A run with a stream takes progress only from its stream: the v0.3.0 signal carries no token to check.
    setHandler(toolProgressSignal, () => this.drop('progress signal'));
    setHandler(runStreamTailQuery, (from) => this.tail(from));
  }

  private get endOffset(): number {
    return this.baseOffset + this.log.length;
  }

  /**
   * From now on, a poll records in the run's memo when someone last watched (`PATCHES.watchedDeltas`), so that the
   * run's `generate` attempts publish only while someone does (they read the memo from Temporal, not from a worker).
   */
  announceWatchers(): void {
    this.announcing = true;
  }

  /** True when a poll came within `WATCHED_FRESH_MS` (as far as the run's renewals tell), or one waits now. */
  watchedLately(): boolean {
    return this.parked.length > 0 || Date.now() - this.announcedAt < WATCHED_FRESH_MS;
  }

  /** A poll came: renew the run's watched memo when it is older than the renewal interval (a command, deterministic). */
  private announceWatcher(): void {
    if (!this.announcing) return;
    const now = Date.now();
    if (now - this.announcedAt < WATCHED_RENEW_MS) return;
    this.announcedAt = now;
    upsertMemo({ [WATCHED_MEMO_KEY]: new Date(now).toISOString() });
  }

  /** Publishes a run event on the `events` topic (called for every event the run's event log emits). */
  publishEvent(event: RunEvent): void {
    this.eventOffsets.set(event.seq, this.endOffset);
    // The oldest go first (a Map keeps insertion order): the final record keeps at most this many events anyway.
    if (this.eventOffsets.size > MAX_EVENT_OFFSETS) this.eventOffsets.delete(this.eventOffsets.keys().next().value!);
    this.append(RUN_STREAM_TOPICS.events, event);
  }

  /** The stream's end for the run's final record: its next offset, and where each of `events` is (-1: unknown). */
  finalRecord(events: readonly RunEvent[]): FinalStreamRecord {
    return { nextOffset: this.endOffset, eventOffsets: events.map((event) => this.eventOffsets.get(event.seq) ?? -1) };
  }

  /** Lets a call publish progress: returns the token for its `executeTool` input. Deterministic (seeded uuid). */
  openCall(toolCallId: string): string {
    const token = uuid4();
    this.calls.set(toolCallId, { token, attempt: 0 });
    return token;
  }

  /** The call ended: later publishes for it are dropped. */
  closeCall(toolCallId: string): void {
    this.calls.delete(toolCallId);
  }

  /** Lets a step's `generate` publish model deltas: returns the token for its input. Deterministic (seeded uuid). */
  openStep(step: number): string {
    const token = uuid4();
    this.steps.set(step, { token, attempt: 0, sequences: new Map() });
    return token;
  }

  /** The step's `generate` returned or failed for good: later publishes for it are dropped. */
  closeStep(step: number): void {
    this.steps.delete(step);
  }

  /** Wakes parked polls and refuses new ones (`StreamDraining`), so `allHandlersFinished` can become true. */
  detach(): void {
    this.draining = true;
  }

  /** Takes polls again after {@link detach} when the run did not continue as new after all. */
  reattach(): void {
    this.draining = false;
  }

  /**
   * The state to carry over continue-as-new: the newest `items` (at most {@link CARRIED_ITEMS}) and the offsets, which
   * go on from it. Truncates the log to them: the execution ends once it is carried.
   */
  carry(items = CARRIED_ITEMS): StreamState {
    this.truncateTo(this.endOffset - Math.min(items, CARRIED_ITEMS));
    return {
      log: this.log.map(({ topic, data }) => ({ topic, data, offset: 0 })),
      base_offset: this.baseOffset,
      publisher_sequences: {},
      publisher_last_seen: {},
    };
  }

  /**
   * Validator of the poll update: runs before anything is recorded, so a refused poll leaves no trace in history.
   * Reads state only (validators do not run on replay).
   */
  private checkPoll(input: StreamPollInput | null | undefined): void {
    if (this.draining) {
      // Workflow Streams' own refusal, by type: its clients poll again until the poll lands on the next execution.
      throw ApplicationFailure.create({
        type: STREAM_DRAINING_FAILURE,
        message: 'The run is continuing as new; poll again.',
        nonRetryable: true,
      });
    }
    const from = input?.from_offset;
    const topics = input?.topics;
    if (!Number.isSafeInteger(from) || from! < 0 || from! > this.endOffset) {
      throw new Error(`Poll from offset ${String(from)} refused: the run's stream ends at offset ${this.endOffset}.`);
    }
    if (!Array.isArray(topics) || topics.length > MAX_POLL_TOPICS || topics.some((t) => typeof t !== 'string')) {
      throw new Error(`Poll refused: topics must be at most ${MAX_POLL_TOPICS} strings.`);
    }
    const now = Date.now();
    const full = this.parked.length >= MAX_POLLS_IN_FLIGHT;
    // What this poll would put in history now: its events, the items it can read at once, and, when every place is
    // taken by a poll that has not outlived its lifetime, the released poll's events.
    const first = this.log[Math.max(from!, this.baseOffset) - this.baseOffset];
    const ready = first ? this.appendedBytes - first.before : 0;
    const releases = full && now - this.parked[0]!.since < POLL_LIFETIME_MS ? 1 : 0;
    const cost = POLL_EVENT_BYTES * (1 + releases) + Math.min(ready, MAX_POLL_RESULT_BYTES);
    if (cost > this.budget.available(now)) {
      // A typed refusal the project's client reads the tail query for instead (src/client/run-stream.ts).
      throw ApplicationFailure.create({
        type: STREAM_BUSY_FAILURE,
        nonRetryable: true,
        message:
          "Watchers have used this run's history budget for now (every poll's result is recorded in the run's " +
          'history). Read the items with the `durable-agent.stream-tail` query, which costs the run nothing, and ' +
          'poll again in a few seconds.',
      });
    }
  }

  /** The poll update's handler: waits for items from the poll's offset (or a release) and returns them. */
  private async poll(input: StreamPollInput): Promise<StreamPollResult> {
    this.announceWatcher();
    const now = Date.now();
    // Polls that outlived their lifetime make room first; then, when every place is still taken, the oldest goes.
    for (const parked of this.parked) if (now - parked.since >= POLL_LIFETIME_MS) parked.released = true;
    const waiting = this.parked.filter((parked) => !parked.released);
    if (waiting.length >= MAX_POLLS_IN_FLIGHT) waiting[0]!.released = true;
    const from = input.from_offset;
    const topics = input.topics.length > 0 ? new Set(input.topics) : undefined;
    const me: ParkedPoll = { from, since: now, released: false };
    this.parked.push(me);
    let result: StreamPollResult;
    try {
      await condition(() => this.draining || me.released || this.endOffset > from || this.baseOffset > from);
      result = this.read(from, topics);
    } finally {
      this.parked.splice(this.parked.indexOf(me), 1);
    }
    this.budget.spend(POLL_EVENT_BYTES + result.items.reduce((sum, item) => sum + item.data.length, 0));
    return result;
  }

  /** The items from `from` (up to {@link MAX_POLL_RESULT_BYTES}); offset 0 reads from the oldest item held. */
  private read(from: number, topics: Set<string> | undefined): StreamPollResult {
    if (from < this.baseOffset && from !== 0) {
      throw ApplicationFailure.create({
        type: STREAM_TRUNCATED_FAILURE,
        nonRetryable: true,
        message: `Items before offset ${this.baseOffset} were truncated from the run's stream; offset ${from} is gone.`,
      });
    }
    const items: StreamWireItem[] = [];
    let bytes = 0;
    let next = this.endOffset;
    for (let offset = Math.max(from, this.baseOffset); offset < this.endOffset; offset++) {
      const item = this.log[offset - this.baseOffset]!;
      if (topics && !topics.has(item.topic)) continue;
      if (bytes + item.bytes > MAX_POLL_RESULT_BYTES && items.length > 0) {
        next = offset;
        break;
      }
      bytes += item.bytes;
      items.push({ topic: item.topic, data: item.data, offset });
    }
    return { items, next_offset: next, more_ready: next < this.endOffset };
  }

  private append(topic: string, value: unknown, bytes = 0): void {
    const data = encodeStreamData(defaultPayloadConverter.toPayload(value));
    const item = { topic, data, bytes: data.length + topic.length, before: this.appendedBytes };
    this.appendedBytes += item.bytes;
    this.log.push(item);
    this.budget.earnItem(item.bytes);
    if (bytes > 0) {
      this.deltaItems.push({ offset: this.endOffset - 1, bytes });
      this.deltaBytes += bytes;
    }
    if (this.log.length > MAX_ITEMS) this.truncateTo(this.endOffset - KEEP_ITEMS);
    if (this.deltaBytes > MAX_DELTA_LOG_BYTES) {
      // Cut the prefix up to the oldest delta items that bring the log under the budget (a watcher behind it is
      // told it missed them, as with any truncation).
      let cut = this.baseOffset;
      let bytesLeft = this.deltaBytes;
      for (const delta of this.deltaItems) {
        if (bytesLeft <= MAX_DELTA_LOG_BYTES / 2) break;
        bytesLeft -= delta.bytes;
        cut = delta.offset + 1;
      }
      this.truncateTo(cut);
    }
  }

  private truncateTo(offset: number): void {
    if (offset <= this.baseOffset) return;
    this.log.splice(0, Math.min(offset - this.baseOffset, this.log.length));
    this.baseOffset = offset;
    while (this.deltaItems.length > 0 && this.deltaItems[0]!.offset < offset) {
      this.deltaBytes -= this.deltaItems.shift()!.bytes;
    }
  }

  /** The tail query: items from `from`, bounded in count and bytes. Costs the run no history. */
  private tail(from: number): RunStreamTail {
    const start = Math.max(0, (Number.isSafeInteger(from) ? from : 0) - this.baseOffset);
    const items: StreamWireItem[] = [];
    let bytes = 0;
    for (let i = start; i < this.log.length && items.length < MAX_TAIL_ITEMS; i++) {
      const item = this.log[i]!;
      if (bytes + item.bytes > MAX_TAIL_BYTES && items.length > 0) break;
      bytes += item.bytes;
      items.push({ topic: item.topic, data: item.data, offset: this.baseOffset + i });
    }
    return { items, baseOffset: this.baseOffset, nextOffset: this.endOffset };
  }

  /** The stream's publish signal, checked: see the class comment. A signal has no validator, so nothing throws. */
  private receive(input: StreamPublishInput | null | undefined): void {
    const entries = Array.isArray(input?.items) ? input.items.slice(-MAX_ENTRIES_PER_PUBLISH) : [];
    if (entries.length === 0) return this.drop('malformed publish');
    const sender = {
      publisher: typeof input?.publisher_id === 'string' ? input.publisher_id : '',
      sequence: Number.isSafeInteger(input?.sequence) ? input!.sequence : 0,
      steps: new Set<OpenStep>(),
    };
    for (const entry of entries) {
      if (entry?.topic === RUN_STREAM_TOPICS.deltas) {
        this.receiveDeltas(decodeDeltas(entry.data), sender);
        continue;
      }
      const progress = entry?.topic === RUN_STREAM_TOPICS.progress ? decodeProgress(entry.data) : undefined;
      const call = progress ? this.calls.get(progress.toolCallId) : undefined;
      if (!progress || !call || call.token !== progress.token) {
        this.drop('publish without the token of a running call');
        continue;
      }
      // An older attempt still running (its heartbeat timed out, it was not told yet) must not overwrite the newer one.
      if (progress.attempt < call.attempt) continue;
      const value = previewOutput(progress.value);
      if (!this.applyProgress({ toolCallId: progress.toolCallId, seq: progress.seq, value })) continue;
      call.attempt = progress.attempt;
      const item: StreamedProgress = {
        toolCallId: progress.toolCallId,
        seq: progress.seq,
        value,
        attempt: progress.attempt,
      };
      this.append(RUN_STREAM_TOPICS.progress, item);
    }
  }

  /**
   * A `deltas` publish, checked: the running step's token, its newest attempt (an older one still running after its
   * heartbeat timed out is ignored), and not a batch the same publisher already sent (a resent signal).
   */
  private receiveDeltas(
    publish: DeltaPublish | undefined,
    sender: { publisher: string; sequence: number; steps: Set<OpenStep> },
  ): void {
    const open = publish ? this.steps.get(publish.step) : undefined;
    if (!publish || !open || open.token !== publish.token) {
      this.drop('deltas publish without the token of a running step');
      return;
    }
    if (publish.attempt < open.attempt) return;
    if (publish.attempt > open.attempt) open.sequences.clear();
    const { publisher, sequence } = sender;
    const last = open.sequences.get(publisher);
    if (publisher !== '' && !sender.steps.has(open)) {
      // A resent signal: its batch is in the log already.
      if (last !== undefined && sequence <= last) return;
      if (last === undefined && open.sequences.size >= MAX_PUBLISHERS_PER_ATTEMPT) {
        this.drop('deltas publish from too many publishers');
        return;
      }
    }
    const bytes = jsonBytes(publish.parts);
    if (bytes > MAX_DELTA_PUBLISH_BYTES) {
      this.drop('deltas publish over its size bound');
      return;
    }
    if (open.attempt > 0 && publish.attempt > open.attempt) {
      const reset: StreamedDeltas = { type: 'reset-step', step: publish.step, attempt: publish.attempt };
      this.append(RUN_STREAM_TOPICS.deltas, reset);
    }
    open.attempt = publish.attempt;
    if (publisher !== '') open.sequences.set(publisher, sequence);
    sender.steps.add(open);
    const item: StreamedDeltas = { type: 'deltas', step: publish.step, attempt: publish.attempt, parts: publish.parts };
    this.append(RUN_STREAM_TOPICS.deltas, item, bytes);
  }

  private drop(why: string): void {
    // Logged for the first few only: a hostile client must not turn the workflow log into its megaphone.
    if (++this.dropped <= 10) log.warn('Dropped a publish to the run stream', { why });
  }
}

/** The `seq` of a carried `events` item, or undefined when it cannot be read. */
function decodeSeq(data: unknown): number | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    const event = defaultPayloadConverter.fromPayload<{ seq?: unknown }>(decodeStreamData(data));
    return Number.isSafeInteger(event?.seq) ? (event.seq as number) : undefined;
  } catch {
    return undefined;
  }
}

/** A progress publish decoded from its wire form, or undefined when it is not one. */
function decodeProgress(data: unknown): ProgressPublish | undefined {
  if (typeof data !== 'string') return undefined;
  let value: unknown;
  try {
    value = defaultPayloadConverter.fromPayload(decodeStreamData(data));
  } catch {
    return undefined;
  }
  const p = value as Partial<ProgressPublish> | null;
  if (typeof p !== 'object' || p === null) return undefined;
  if (typeof p.toolCallId !== 'string' || typeof p.token !== 'string') return undefined;
  if (!Number.isSafeInteger(p.seq) || !Number.isSafeInteger(p.attempt) || p.attempt! < 1) return undefined;
  return {
    toolCallId: p.toolCallId,
    token: p.token,
    seq: p.seq!,
    attempt: p.attempt!,
    value: (p.value ?? null) as JsonValue,
  };
}

/**
 * A deltas publish decoded from its wire form and rebuilt from the fields it may have (so nothing else a publisher
 * adds, the token included, reaches watchers), or undefined when it is not one.
 */
function decodeDeltas(data: unknown): DeltaPublish | undefined {
  if (typeof data !== 'string') return undefined;
  let value: unknown;
  try {
    value = defaultPayloadConverter.fromPayload(decodeStreamData(data));
  } catch {
    return undefined;
  }
  const p = value as Partial<DeltaPublish> | null;
  if (typeof p !== 'object' || p === null || typeof p.token !== 'string') return undefined;
  if (!Number.isSafeInteger(p.step) || p.step! < 1 || !Number.isSafeInteger(p.attempt) || p.attempt! < 1) {
    return undefined;
  }
  if (!Array.isArray(p.parts) || p.parts.length === 0 || p.parts.length > MAX_DELTA_PARTS) return undefined;
  const parts: DeltaPart[] = [];
  for (const raw of p.parts as unknown[]) {
    const part = deltaPartOf(raw);
    if (!part) return undefined;
    parts.push(part);
  }
  return { token: p.token, step: p.step!, attempt: p.attempt!, parts };
}

/** A piece of model output (an AI SDK stream part the run carries) rebuilt from its fields, or undefined. */
function deltaPartOf(raw: unknown): DeltaPart | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { type, id, text, delta, toolName } = raw as Record<string, unknown>;
  if (typeof id !== 'string' || id.length > MAX_DELTA_ID_CHARS) return undefined;
  switch (type) {
    case 'text-start':
    case 'reasoning-start':
      return { type, id };
    case 'text-delta':
    case 'reasoning-delta':
      return typeof text === 'string' ? { type, id, text } : undefined;
    case 'tool-input-start':
      return typeof toolName === 'string' && toolName.length <= MAX_DELTA_ID_CHARS ? { type, id, toolName } : undefined;
    case 'tool-input-delta':
      return typeof delta === 'string' ? { type, id, delta } : undefined;
    default:
      return undefined;
  }
}
