// A run's stream as a terminal shows it: the event lines of `watch`, and the model's text written out as it comes
// (model deltas), numbered with the event its text becomes, with a marker line when a retried model call starts its
// step over. Pure: it returns the text to
// write, and the caller writes it. Model text is untrusted: every piece is made terminal-safe before it is written
// (a piece is never joined with the next before that, so an escape sequence split across pieces stays inert too).
import { FullStreamAssembler, ShownText, type FullStreamPart } from '../client/full-stream.js';
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
  /** Steps whose text is on the screen, written live (at least in part). */
  private readonly live = new Set<number>();
  /** What the screen shows of each step's text, across retries (the assembler's parts as a screen shows them). */
  private readonly shown = new ShownText();
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
      return this.note(
        `items ${part.missedFrom}–${part.offset - 1} of the run's stream were dropped before this watch read them`,
      );
    }
    if (part.type === 'live-unavailable') {
      return this.note(`the run's live stream is unavailable (${part.reason}): its events follow from the run`);
    }
    return { text: this.written(parts) };
  }

  /** Ends an open live line (before anything else is written, a prompt or a note). */
  close(): string {
    if (!this.open) return '';
    this.open = false;
    return '\n';
  }

  private event(event: RunEvent, parts: FullStreamPart[]): string {
    if (event.type === 'text' && this.live.has(event.step)) {
      // The recorded text completes the live line (or replaces it after a marker, when they differ).
      return this.written(parts) + this.close() + this.renumbered(event);
    }
    return `${this.close()}${this.prefix}${this.options.format(event)}\n`;
  }

  /** What full-stream parts write on the live line. */
  private written(parts: FullStreamPart[]): string {
    let text = '';
    for (const part of parts) {
      const change = this.shown.push(part);
      if (change?.type === 'void') {
        this.live.delete(change.step);
        const why =
          change.reason === 'retry'
            ? `the model call of step ${change.step} is retried (attempt ${change.attempt}): its text so far is void`
            : `step ${change.step} as recorded:`;
        text += this.marker(why);
      }
      if (change) text += this.liveText(change.step, change.text);
    }
    return text;
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

  private note(what: string): PrintedPart {
    return { text: `${this.close()}${this.prefix}${this.style.yellow(`(${terminalSafe(what)})`)}\n` };
  }

  private marker(why: string): string {
    return `${this.close()}${this.prefix}${this.style.yellow(`↺ ${why}`)}\n`;
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
