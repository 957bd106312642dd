import { ApplicationFailure, defaultPayloadConverter, log, setHandler, upsertMemo, uuid4 } from '@temporalio/workflow';
import {
  WorkflowStream,
  decodePayloadWire,
  workflowStreamPollUpdate,
  workflowStreamPublishSignal,
  type PollInput,
  type PollResult,
  type PublishInput,
  type WorkflowStreamState,
} from '@temporalio/workflow-streams/workflow';
import {
  MAX_DELTA_ID_CHARS,
  MAX_DELTA_PARTS,
  MAX_DELTA_PUBLISH_BYTES,
  RUN_STREAM_TOPICS,
  STREAM_BUSY_FAILURE,
  WATCHED_FRESH_MS,
  WATCHED_MEMO_KEY,
  WATCHED_RENEW_MS,
  jsonBytes,
  previewOutput,
  type DeltaKind,
  type DeltaPart,
  type DeltaPublish,
  type FinalStreamRecord,
  type JsonValue,
  type ProgressPublish,
  type RunEvent,
  type RunStreamTail,
  type StreamedDeltas,
  type StreamedProgress,
  type ToolProgress,
} from '../src/protocol/index.js';
import { runStreamTailQuery, toolProgressSignal } from '../src/protocol/run-messages.js';

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
 * poll holds one for as long as it waits: past this many, a poll is refused (`StreamBusy`) so that approvals,
 * client-side results and MCP questions, which are updates too, always find room. Watchers in one process share one
 * poll, so this is the number of processes that watch the run live at once; the others poll again shortly.
 */
export const MAX_POLLS_IN_FLIGHT = 5;
/** Topics a poll may filter on (the run has two). */
const MAX_POLL_TOPICS = 8;
/** Events whose stream offset is kept (the final record holds fewer: it is bounded to 256 KiB). */
const MAX_EVENT_OFFSETS = 5_000;
/** Items the tail query returns at once. */
const MAX_TAIL_ITEMS = 1_000;
/**
 * Bytes of `deltas` items the in-memory log holds at most (besides {@link MAX_ITEMS}): past it, the oldest items are
 * truncated, which are those of finished steps (whose final message, on the `events` topic, stands in for them)
 * unless one step alone wrote more.
 */
const MAX_DELTA_LOG_BYTES = 2_000_000;
const DELTA_KINDS: ReadonlySet<string> = new Set<DeltaKind>(['text', 'reasoning', 'tool-input']);

/** A running call that may publish progress: its token, and the newest attempt seen publishing. */
interface OpenCall {
  token: string;
  attempt: number;
}

/**
 * A running step that may publish model deltas: its token, the newest attempt that published, and the last sequence
 * of each stream publisher of that attempt (the stream client resends a batch whose signal it could not confirm).
 */
interface OpenStep {
  token: string;
  attempt: number;
  sequences: Map<string, number>;
}
/** Publishers one attempt of a step may have (its activity has one; the token's holders are the run's own). */
const MAX_PUBLISHERS_PER_ATTEMPT = 4;

/**
 * The run's one `WorkflowStream` (since 0.4.0, `PATCHES.runStream`): every run event on the `events` topic, tool
 * progress on the `progress` topic. Clients long-poll it through the stream's update, so watching costs no worker.
 *
 * The stream's own publish signal takes items from anyone who can signal the run; here it is replaced by a handler
 * that takes only `progress` items carrying the token this run gave the call's `executeTool` input (a capability
 * recorded in the run's history only), from the call's newest attempt, while the call runs. Anything else is
 * dropped, so a watcher never shows progress the run's own tool did not report.
 *
 * Model deltas (`PATCHES.modelDeltas`) follow the same rule with a per-step token: only `deltas` publishes of the
 * running step's `generate`, from its newest attempt, are appended, one item per publish, after a `reset-step`
 * item when a newer attempt publishes than the last one that did.
 */
export class RunStream {
  private readonly stream: WorkflowStream;
  private baseOffset: number;
  private endOffset: number;
  private readonly calls = new Map<string, OpenCall>();
  private readonly steps = new Map<number, OpenStep>();
  /** The `deltas` items of the log, oldest first: offset and bytes (for {@link MAX_DELTA_LOG_BYTES}). */
  private readonly deltaItems: { offset: number; bytes: number }[] = [];
  private deltaBytes = 0;
  private dropped = 0;
  private draining = false;
  /** Polls in flight (parked until an item comes): each holds one of the run's few in-flight updates. */
  private polls = 0;
  /** Whether polls renew the run's watched memo (`PATCHES.watchedDeltas`), and when it was last renewed. */
  private announcing = false;
  private announcedAt = Number.NEGATIVE_INFINITY;
  /** The stream offset of each event the run published (and of the carried ones), by `seq`: for the final record. */
  private readonly eventOffsets = new Map<number, number>();

  constructor(
    prior: WorkflowStreamState | undefined,
    /** Applies a checked yield to the run (state query, `tool-progress` event); false when it is not newer. */
    private readonly applyProgress: (progress: ToolProgress) => boolean,
  ) {
    this.stream = new WorkflowStream(prior);
    this.baseOffset = prior?.base_offset ?? 0;
    this.endOffset = this.baseOffset + (prior?.log.length ?? 0);
    prior?.log.forEach((item, index) => {
      if (item.topic !== RUN_STREAM_TOPICS.events) return;
      const seq = decodeSeq(item.data);
      if (seq !== undefined) this.eventOffsets.set(seq, this.baseOffset + index);
    });
    setHandler(workflowStreamPublishSignal, (input) => this.receive(input));
    // The stream's poll, with a validator that also refuses offsets the run has not reached: such a poll would park
    // until the run ends, holding one of the few updates Temporal lets a run have in flight.
    const poll = this.stream as unknown as { onPoll(input: PollInput): Promise<PollResult> };
    setHandler(
      workflowStreamPollUpdate,
      async (input) => {
        this.announceWatcher();
        this.polls++;
        try {
          return await poll.onPoll(input);
        } finally {
          this.polls--;
        }
      },
      { validator: (input) => this.checkPoll(input) },
    );
    // A run with a stream takes progress only from its stream: the v0.3.0 signal carries no token to check.
    setHandler(toolProgressSignal, () => this.drop('progress signal'));
    setHandler(runStreamTailQuery, (from) => this.tail(from));
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
    return this.polls > 0 || Date.now() - this.announcedAt < WATCHED_FRESH_MS;
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
    this.stream.detachPollers();
  }

  /**
   * Takes polls again after {@link detach} when the run did not continue as new after all. The stream has no public
   * way back; its `draining` flag is the only state `detachPollers` sets (checked against 1.23.0's source).
   */
  reattach(): void {
    this.draining = false;
    (this.stream as unknown as { draining: boolean }).draining = false;
  }

  /**
   * The state to carry over continue-as-new: the newest `items` (at most {@link CARRIED_ITEMS}) and the offsets, which
   * go on from it. Truncates the log to them: the execution ends once it is carried.
   */
  carry(items = CARRIED_ITEMS): WorkflowStreamState {
    this.truncateTo(this.endOffset - Math.min(items, CARRIED_ITEMS));
    return this.stream.getState();
  }

  /** Validator of the poll update: runs before anything is recorded, so a refused poll leaves no trace in history. */
  private checkPoll(input: PollInput | null | undefined): void {
    if (this.draining) {
      // The stream's own refusal, by type: its client retries until the poll lands on the next execution.
      throw ApplicationFailure.create({ type: 'StreamDraining', message: 'The run is continuing as new; poll again.' });
    }
    if (this.polls >= MAX_POLLS_IN_FLIGHT) {
      // A typed refusal the project's client waits out (src/client/run-stream.ts); nothing is recorded.
      throw ApplicationFailure.create({
        type: STREAM_BUSY_FAILURE,
        message:
          `${this.polls} watchers already wait on this run's stream, the most it lets wait at once (the rest of ` +
          "Temporal's in-flight updates are kept for people's decisions). Poll again in a moment.",
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
  }

  private append(topic: string, value: unknown, bytes = 0): void {
    this.stream.topic(topic).publish(value);
    this.endOffset++;
    if (bytes > 0) {
      this.deltaItems.push({ offset: this.endOffset - 1, bytes });
      this.deltaBytes += bytes;
    }
    if (this.endOffset - this.baseOffset > MAX_ITEMS) this.truncateTo(this.endOffset - KEEP_ITEMS);
    if (this.deltaBytes > MAX_DELTA_LOG_BYTES) {
      // Cut the prefix up to the oldest delta items that bring the log under the budget (a watcher behind it is
      // told it missed them, as with any truncation).
      let cut = this.baseOffset;
      let bytesLeft = this.deltaBytes;
      for (const item of this.deltaItems) {
        if (bytesLeft <= MAX_DELTA_LOG_BYTES / 2) break;
        bytesLeft -= item.bytes;
        cut = item.offset + 1;
      }
      this.truncateTo(cut);
    }
  }

  private truncateTo(offset: number): void {
    if (offset <= this.baseOffset) return;
    this.stream.truncate(offset);
    this.baseOffset = offset;
    while (this.deltaItems.length > 0 && this.deltaItems[0]!.offset < offset) {
      this.deltaBytes -= this.deltaItems.shift()!.bytes;
    }
  }

  private tail(from: number): RunStreamTail {
    const state = this.stream.getState();
    const start = Math.max(0, (Number.isSafeInteger(from) ? from : 0) - state.base_offset);
    const items = state.log
      .slice(start, start + MAX_TAIL_ITEMS)
      .map((item, index) => ({ ...item, offset: state.base_offset + start + index }));
    return { items, baseOffset: state.base_offset, nextOffset: state.base_offset + state.log.length };
  }

  /** The stream's publish signal, checked: see the class comment. A signal has no validator, so nothing throws. */
  private receive(input: PublishInput | null | undefined): void {
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
    const event = defaultPayloadConverter.fromPayload<{ seq?: unknown }>(decodePayloadWire(data));
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
    value = defaultPayloadConverter.fromPayload(decodePayloadWire(data));
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
    value = defaultPayloadConverter.fromPayload(decodePayloadWire(data));
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
    const part = raw as Partial<DeltaPart> | null;
    if (typeof part !== 'object' || part === null) return undefined;
    const { id, kind, text, toolName } = part;
    if (typeof id !== 'string' || id.length > MAX_DELTA_ID_CHARS || typeof text !== 'string') return undefined;
    if (typeof kind !== 'string' || !DELTA_KINDS.has(kind)) return undefined;
    if (toolName !== undefined && (typeof toolName !== 'string' || toolName.length > MAX_DELTA_ID_CHARS)) {
      return undefined;
    }
    parts.push({ id, kind, text, ...(toolName !== undefined ? { toolName } : {}) });
  }
  return { token: p.token, step: p.step!, attempt: p.attempt!, parts };
}
