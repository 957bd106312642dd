import { getGlobalLogger } from '../logger.js';
import type { ModelDelta } from '../models/call-model.js';
import {
  MAX_DELTA_ID_CHARS,
  MAX_DELTA_PARTS,
  MAX_DELTA_PUBLISH_BYTES,
  RUN_STREAM_TOPICS,
  truncateUtf8,
  utf8Length,
  type DeltaPart,
  type DeltaPublish,
} from '../protocol/index.js';
import { StreamPublisher, type RunItemPublisher } from './stream-publisher.js';

/** How long one publish is retried before it is given up (deltas are for watchers, never the step). */
const STREAM_RETRY_MS = 10_000;
/** How long the end of a step waits for its last pieces to be published. */
const CLOSE_TIMEOUT_MS = 5_000;
/** Room kept under {@link MAX_DELTA_PUBLISH_BYTES} for the JSON around the pieces' text (ids, kinds, brackets). */
const BATCH_BYTES = MAX_DELTA_PUBLISH_BYTES - 4_096;
/** A piece of text is cut to this many UTF-8 bytes at most; a longer one is sent over several publishes. */
const PIECE_BYTES = 8_192;

/** Where a `generate` attempt publishes: the run's token for the step, the step, this attempt, the batch interval. */
export interface DeltaPublisherOptions {
  token: string;
  step: number;
  attempt: number;
  intervalMs: number;
  /**
   * Publish only while someone watches the run's stream (`streamWhenWatched`): `watched` tells whether someone does
   * now (the run's memo, read from Temporal). Called at the attempt's first piece unless `watchedAtStart`, then every
   * {@link PROBE_UNWATCHED_MS} while nobody watches and every {@link PROBE_WATCHED_MS} while someone does. Without it,
   * every piece is published.
   */
  whenWatched?: { watched: () => Promise<boolean>; watchedAtStart: boolean };
  /**
   * Where batches go. Default: the run's Workflow Streams log, a signal per batch. A run whose live stream is on
   * Redis passes its `LiveRunPublisher` (and no `whenWatched`: watchers cost the run nothing there).
   */
  publisher?: RunItemPublisher;
}

/**
 * How often an unwatched attempt asks whether someone watches now (a watcher that comes waits at most this long):
 * quickly in the attempt's first second, when someone who starts a run and watches it is still arriving.
 */
const PROBE_UNWATCHED_MS = 1_000;
const FIRST_PROBE_MS = 50;
const EARLY_PROBES_MS = [100, 100, 200, 400];
/** How often a watched attempt asks whether someone still does. */
const PROBE_WATCHED_MS = 5_000;

/**
 * Publishes one `generate` attempt's model output on the run stream's `deltas` topic as {@link DeltaPublish}
 * batches: the attempt's first piece at once (time to first token is what people feel), later ones together at most
 * once per interval, each batch at most {@link MAX_DELTA_PUBLISH_BYTES} (a longer piece is split), one publish at
 * a time in order. Publishing never fails the step: a publish that fails is retried for a
 * while, then logged and dropped (the step's final message, which the run records, stands in for it).
 */
export class DeltaPublisher {
  private parts: DeltaPart[] = [];
  private bytes = 0;
  private readonly ready: DeltaPart[][] = [];
  /** The parts this attempt started (a `*-start` part sent), by id. */
  private readonly opened = new Set<string>();
  private started = false;
  private lastSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private stream: RunItemPublisher | undefined;
  private closed = false;
  private failures = 0;
  /** Whether pieces go out now: always without `whenWatched`; with it, while someone watches the run's stream. */
  private watched: boolean;
  private probing: NodeJS.Timeout | undefined;
  private probed = false;
  private probes = 0;

  constructor(private readonly options: DeltaPublisherOptions) {
    this.watched = options.whenWatched ? options.whenWatched.watchedAtStart : true;
  }

  /** The `onDelta` listener of the model call. Never throws: a publishing problem must not end the model call. */
  readonly onDelta = (delta: ModelDelta): void => {
    try {
      if (this.closed || delta.delta === '') return;
      // The run would drop a whole publish for an overlong id: this piece alone is left out (the final message has it).
      const toolName = delta.type === 'tool-input' ? delta.toolName : '';
      if (delta.id.length > MAX_DELTA_ID_CHARS || toolName.length > MAX_DELTA_ID_CHARS) return;
      this.add(delta);
      if (!this.probed && this.options.whenWatched) {
        this.probed = true;
        // Asked soon (not at once: a step that ends within that time, a tool call say, asks nobody) when the run did
        // not say someone watched; else first after the watched interval.
        this.scheduleProbe(this.watched ? PROBE_WATCHED_MS : FIRST_PROBE_MS);
      }
      // Nobody watches: the pieces wait (what the attempt wrote so far goes out when someone comes).
      if (!this.watched) return;
      if (!this.started) {
        // The attempt's first piece: at once.
        this.started = true;
        this.send();
      } else if (!this.timer) {
        const wait = this.lastSentAt + this.options.intervalMs - Date.now();
        if (wait <= 0) this.send();
        else this.timer = setTimeout(() => this.send(), wait);
      }
    } catch (err) {
      this.failed(err);
    }
  };

  /** Publishes what is left and waits for it (at most {@link CLOSE_TIMEOUT_MS}); never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.stopProbing();
    // Unwatched to the end: nothing goes out (the step's recorded message stands in for its pieces).
    if (this.watched) this.send();
    this.closed = true;
    // Nothing ever went out (a step nobody watched, or one without text): nothing to drain.
    if (!this.pumping && !this.stream) return;
    const drained = (async () => {
      while (this.pumping) await this.pumping;
      await this.stream?.drain();
    })().catch((err: unknown) => this.failed(err));
    // A plain timer, cleared: an aborted `delay` would build an AbortError (a DOMException and its stack) per step.
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)));
    await Promise.race([drained, timedOut]);
    clearTimeout(timer);
  }

  /** The attempt failed or was cancelled: nothing more is published (what a next attempt writes replaces it). */
  abandon(): void {
    this.stopProbing();
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.parts = [];
    this.ready.length = 0;
  }

  /** Asks whether someone watches after `ms`; when someone starts watching, what was written so far goes out. */
  private scheduleProbe(ms: number): void {
    this.probing = setTimeout(() => void this.probe(), ms);
  }

  private async probe(): Promise<void> {
    let watched: boolean;
    try {
      watched = await this.options.whenWatched!.watched();
    } catch (err) {
      // Not knowing must not hide the text from someone who watches: publish, as without watching.
      this.failed(err);
      watched = true;
    }
    if (this.closed) return;
    const came = watched && !this.watched;
    this.watched = watched;
    if (came) {
      // The attempt's pieces so far, at once (a first piece, for the watcher who came).
      this.started = true;
      this.send();
    }
    this.scheduleProbe(watched ? PROBE_WATCHED_MS : (EARLY_PROBES_MS[this.probes++] ?? PROBE_UNWATCHED_MS));
  }

  private stopProbing(): void {
    clearTimeout(this.probing);
    this.probing = undefined;
  }

  /**
   * Adds a delta to the current batch as AI SDK stream parts: a `*-start` part at its part's first piece, then
   * `*-delta` parts, merged into the previous one of the same part, split when long.
   */
  private add(delta: ModelDelta): void {
    if (!this.opened.has(delta.id)) {
      this.opened.add(delta.id);
      const start: DeltaPart =
        delta.type === 'tool-input'
          ? { type: 'tool-input-start', id: delta.id, toolName: delta.toolName }
          : { type: `${delta.type}-start`, id: delta.id };
      this.push(start);
    }
    let text = delta.delta;
    while (text !== '') {
      const room = Math.min(PIECE_BYTES, BATCH_BYTES - this.bytes);
      if (room < 64 || this.parts.length >= MAX_DELTA_PARTS) {
        this.cut();
        continue;
      }
      const piece = truncateUtf8(text, room) || text.slice(0, 2);
      text = text.slice(piece.length);
      const last = this.parts[this.parts.length - 1];
      if (last?.type === 'tool-input-delta' && delta.type === 'tool-input' && last.id === delta.id) {
        last.delta += piece;
      } else if (last?.type === `${delta.type}-delta` && last.id === delta.id && 'text' in last) {
        last.text += piece;
      } else if (delta.type === 'tool-input') {
        this.push({ type: 'tool-input-delta', id: delta.id, delta: piece });
      } else {
        this.push({ type: `${delta.type}-delta`, id: delta.id, text: piece });
      }
      // Bytes of the piece's text in JSON (counted in the batch it went to).
      this.bytes += utf8Length(JSON.stringify(piece)) - 2;
    }
  }

  /** Adds a part to the current batch (cut first when it is full), counting the bytes around its text. */
  private push(part: DeltaPart): void {
    if (this.parts.length >= MAX_DELTA_PARTS || this.bytes + 512 > BATCH_BYTES) this.cut();
    this.parts.push(part);
    const name = part.type === 'tool-input-start' ? utf8Length(JSON.stringify(part.toolName)) : 0;
    this.bytes += 48 + utf8Length(JSON.stringify(part.id)) + name;
  }

  /** Moves the current batch to the publishing queue. */
  private cut(): void {
    if (this.parts.length === 0) return;
    this.ready.push(this.parts);
    this.parts = [];
    this.bytes = 0;
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.cut();
    if (this.ready.length === 0) return;
    this.lastSentAt = Date.now();
    this.startPump();
  }

  private startPump(): void {
    if (this.pumping) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      // A batch queued after the loop's last look, before this ran.
      if (this.ready.length > 0) this.startPump();
    });
  }

  /** Publishes the queued batches one after the other, each confirmed before the next (keeps their order). */
  private async pump(): Promise<void> {
    for (let parts = this.ready.shift(); parts; parts = this.ready.shift()) {
      try {
        this.stream ??= this.options.publisher ?? new StreamPublisher(STREAM_RETRY_MS);
        const { token, step, attempt } = this.options;
        const item: DeltaPublish = { token, step, attempt, parts };
        await this.stream.publish([{ topic: RUN_STREAM_TOPICS.deltas, value: item }]);
      } catch (err) {
        this.failed(err);
      }
    }
  }

  private failed(err: unknown): void {
    // The first few only: a stream that cannot be reached must not flood the worker's log.
    if (++this.failures <= 3) {
      getGlobalLogger().warn('Could not publish model deltas to the run stream; the final message stands in', {
        step: this.options.step,
        attempt: this.options.attempt,
        err: String(err),
      });
    }
  }
}
