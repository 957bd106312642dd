// A run's stream as a terminal shows it: the event lines of `watch`, and the model's text written out as it comes
// (model deltas), numbered with the event its text becomes, with a marker line when a retried model call starts its
// step over. Pure: it returns the text to
// write, and the caller writes it. Model text is untrusted: every piece is made terminal-safe before it is written
// (a piece is never joined with the next before that, so an escape sequence split across pieces stays inert too).
import { FullStreamAssembler, type FullStreamPart } from '../client/full-stream.js';
import type { RunStreamPart } from '../client/run-stream.js';
import type { RunEvent } from '../protocol/index.js';
import type { EventFormatter } from './format.js';
import { PLAIN, type Style } from './style.js';
import { terminalSafe } from './terminal-text.js';

const INDENT = '    ';

/** Options of {@link RunPrinter}. */
export interface RunPrinterOptions {
  /** Formats the event lines (see `createEventFormatter`). */
  format: EventFormatter;
  style?: Style;
  /** Start a live line with the time of day, as event lines with timestamps do. Default false. */
  timestamps?: boolean;
  /** Written before each line (the demo indents its lines). Default none. */
  linePrefix?: string;
  /** The clock for a live line's time. */
  now?: () => Date;
}

/** What one part of the stream shows. */
export interface PrintedPart {
  /** Text to write as is (newlines included; a live line stays open until its step's text is recorded). */
  text: string;
  /** The run event the part carries, when it is one (for the caller's own bookkeeping: prompts, terminal state). */
  event?: RunEvent;
}

/**
 * Prints a run's stream (see {@link printedParts}, which reads it). It keeps what the terminal shows (an open live
 * line, the steps whose text was written live) across the reads of one watch.
 */
export class RunPrinter {
  private readonly style: Style;
  private readonly prefix: string;
  /** A live line is open (its text written, no newline yet). */
  private open = false;
  /** Steps whose text was written live, at least in part. */
  private readonly live = new Set<number>();
  /** What the terminal shows of each live step's text. */
  private readonly shown = new Map<number, string>();
  /**
   * Steps whose model call was retried after part of its text was shown: what the new attempt wrote so far, held
   * back while it repeats what is shown. A retry that writes the same words (a deterministic model, a provider that
   * replays) goes on from where the screen is, with no marker and no word twice; one that writes other words gets
   * the marker line and its own text.
   */
  private readonly retrying = new Map<number, { attempt: number; text: string }>();
  /** The `seq` of the last event read (shown or not): a live line's text becomes the next one. */
  private lastSeq = 0;
  /** The event number each live step's line was given. */
  private readonly numbers = new Map<number, number>();

  constructor(private readonly options: RunPrinterOptions) {
    this.style = options.style ?? PLAIN;
    this.prefix = options.linePrefix ?? '';
  }

  /** What `part` shows, given the full-stream parts it made (see `FullStreamAssembler`). */
  print(part: RunStreamPart, parts: FullStreamPart[], show: boolean): PrintedPart {
    if (part.type === 'event') {
      const text = show ? this.event(part.event, parts) : '';
      this.lastSeq = Math.max(this.lastSeq, part.event.seq);
      return { text, event: part.event };
    }
    if (!show) return { text: '' };
    if (part.type === 'truncated') {
      return {
        text:
          this.close() +
          `${this.prefix}${this.style.yellow(`(items ${part.missedFrom}–${part.offset - 1} of the run's stream were dropped before this watch read them)`)}\n`,
      };
    }
    return { text: parts.map((full) => this.written(full)).join('') };
  }

  /** Ends an open live line (before anything else is written, a prompt or a note). */
  close(): string {
    if (!this.open) return '';
    this.open = false;
    return '\n';
  }

  private event(event: RunEvent, parts: FullStreamPart[]): string {
    const retry = event.type === 'text' ? this.retrying.get(event.step) : undefined;
    if (event.type === 'text' && retry) {
      // The step ended while its retry was still repeating the screen: show the recorded text once more if it is
      // not what the screen already says.
      this.retrying.delete(event.step);
      const recorded = retry.text + parts.map((full) => (full.type === 'text-delta' ? full.text : '')).join('');
      if (recorded === this.shown.get(event.step)) return this.close() + this.renumbered(event);
      this.live.delete(event.step);
      return `${this.marker(`step ${event.step} as recorded:`)}${this.liveText(event.step, recorded)}${this.close()}`;
    }
    if (event.type === 'text' && this.live.has(event.step)) {
      // The recorded text completes the live line (or replaces it after a marker, when they differ).
      return parts.map((full) => this.written(full)).join('') + this.close() + this.renumbered(event);
    }
    return `${this.close()}${this.prefix}${this.options.format(event)}\n`;
  }

  /** What a full-stream part writes on a live line. */
  private written(part: FullStreamPart): string {
    if (part.type === 'reset-step' && part.reason === 'retry' && this.live.has(part.step)) {
      this.retrying.set(part.step, { attempt: part.attempt, text: '' });
      return '';
    }
    if (part.type === 'text-delta' && this.retrying.has(part.step)) return this.caughtUp(part.step, part.text);
    if (part.type === 'reset-step') {
      if (!this.live.has(part.step)) return '';
      this.retrying.delete(part.step);
      const why =
        part.reason === 'retry'
          ? `the model call of step ${part.step} is retried (attempt ${part.attempt}): its text so far is void`
          : `step ${part.step} as recorded:`;
      this.live.delete(part.step);
      return this.marker(why);
    }
    if (part.type !== 'text-delta') return '';
    return this.liveText(part.step, part.text);
  }

  /** `piece` of a step's text on the live line (opening it first). */
  private liveText(step: number, piece: string): string {
    const { style } = this;
    if (piece === '') return '';
    let text = '';
    if (!this.open) {
      const time = this.options.timestamps ? `${style.dim(timeOfDay(this.options.now?.() ?? new Date()))} ` : '';
      // The step's text event is recorded once the model is done, as the run's next event: that is its number,
      // unless another event is recorded first (that one's line then ends this one, and the next line is renumbered).
      const seq = this.lastSeq + 1;
      this.numbers.set(step, seq);
      const says = this.live.has(step) ? 'model says (continued):' : 'model says:';
      text += `${this.prefix}${time}${style.dim(`#${String(seq).padEnd(3)}`)} ${says} `;
      this.open = true;
    }
    this.live.add(step);
    this.shown.set(step, (this.shown.get(step) ?? '') + piece);
    return text + terminalSafe(piece).replace(/\n/g, `\n${INDENT}`);
  }

  /**
   * A line for a step's recorded text whose number differs from its live line's: another event was recorded between
   * the model's last piece and its text (a late MCP listing), so the live line's number went to that event.
   */
  private renumbered(event: Extract<RunEvent, { type: 'text' }>): string {
    const shownAs = this.numbers.get(event.step);
    if (shownAs === undefined || shownAs === event.seq) return '';
    this.numbers.set(event.step, event.seq);
    const time = this.options.timestamps ? `${this.style.dim(timeOfDay(this.options.now?.() ?? new Date()))} ` : '';
    const number = this.style.dim(`#${String(event.seq).padEnd(3)}`);
    const note = this.style.dim(`(the model's text of step ${event.step} above, as recorded)`);
    return `${this.prefix}${time}${number} ${note}\n`;
  }

  private marker(why: string): string {
    return `${this.close()}${this.prefix}${this.style.yellow(`↺ ${why}`)}\n`;
  }

  /** A retried step's new text: nothing while it repeats the screen, then only what is new, or the marker. */
  private caughtUp(step: number, piece: string): string {
    const retry = this.retrying.get(step)!;
    retry.text += piece;
    const shown = this.shown.get(step) ?? '';
    if (shown.startsWith(retry.text)) return '';
    this.retrying.delete(step);
    if (retry.text.startsWith(shown)) {
      return this.liveText(step, retry.text.slice(shown.length));
    }
    // Other words: the screen's text is void. Say so, then write the new attempt's text from its start.
    this.live.delete(step);
    this.shown.delete(step);
    const why = `the model call of step ${step} is retried (attempt ${retry.attempt}): its text so far is void`;
    return this.marker(why) + this.liveText(step, retry.text);
  }
}

function timeOfDay(date: Date): string {
  return date.toISOString().slice(11, 19);
}

/** Where a watch is: the last event and stream offset it printed. */
export interface WatchPosition {
  /** The `seq` of the last event printed (0: none; a watch `--after N` starts at N). */
  lastSeq: number;
  /** The offset of the last stream item printed (-1: none). */
  lastOffset: number;
}

/**
 * What a watch prints of `parts`, read from the start of the run's stream (or, with `offsets: false`, of its
 * recorded events): only what comes after `position`, which it moves on. Model text is shown only after the event
 * the watch starts after. Call it again with the same position after an outage: nothing is repeated or missed.
 */
export async function* printedParts(
  parts: AsyncIterable<RunStreamPart>,
  printer: RunPrinter,
  position: WatchPosition,
  options: { offsets: boolean } = { offsets: true },
): AsyncGenerator<PrintedPart> {
  // Each read goes from the start of the stream: a fresh assembler knows each step's text so far.
  const assembler = new FullStreamAssembler();
  let shown = position.lastSeq === 0;
  for await (const part of parts) {
    const isEvent = part.type === 'event';
    const show = isEvent
      ? part.event.seq > position.lastSeq
      : shown && (!options.offsets || part.offset > position.lastOffset);
    if (isEvent && part.event.seq >= position.lastSeq) shown = true;
    const printed = printer.print(part, assembler.push(part), show);
    if (!show) continue;
    if (options.offsets) position.lastOffset = part.offset;
    if (printed.event) position.lastSeq = printed.event.seq;
    yield printed;
  }
}
