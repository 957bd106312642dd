// A run's stream as typed parts in the AI SDK's idiom (`start-step`, `text-start`/`text-delta`/`text-end`,
// `tool-call`, `finish`, ...), and its text as a plain string stream. Pure: it turns `RunStreamPart`s into parts and
// does no I/O, so it works the same from any offset, after a reconnect, and for runs that publish no model deltas
// (streaming off, runs started on v0.3.0), whose text comes whole from the step's `text` event.
import {
  EVENT_OUTPUT_PREVIEW_CHARS,
  type DeltaKind,
  type JsonValue,
  type RunEvent,
  type Usage,
} from '../protocol/index.js';
import type { RunStreamPart } from './run-stream.js';

type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

/**
 * One part of a run's full stream. `offset` is the offset of the run-stream item it comes from (several parts can
 * come from one item: a `tool-call` event closes its tool input first); resume with
 * `run.fullStreamFrom({ from: part.offset + 1 })` once every part of that offset is handled.
 */
export type FullStreamPart = { offset: number } & (
  | { type: 'start'; agentName: string }
  | { type: 'start-step'; step: number }
  /** A text, reasoning or tool-input part begins. `attempt`: the model call's attempt (0 when not streamed). */
  | { type: 'text-start'; step: number; attempt: number; id: string }
  | { type: 'text-delta'; step: number; attempt: number; id: string; text: string }
  | { type: 'text-end'; step: number; attempt: number; id: string }
  | { type: 'reasoning-start'; step: number; attempt: number; id: string }
  | { type: 'reasoning-delta'; step: number; attempt: number; id: string; text: string }
  | { type: 'reasoning-end'; step: number; attempt: number; id: string }
  | { type: 'tool-input-start'; step: number; attempt: number; id: string; toolName: string }
  | { type: 'tool-input-delta'; step: number; attempt: number; id: string; delta: string }
  | { type: 'tool-input-end'; step: number; attempt: number; id: string }
  /**
   * Everything shown of step `step` so far (its text, reasoning and tool input parts) is void: attempt `attempt`
   * of the model call starts over (its parts follow with new `*-start` parts), or the step's recorded message
   * differs from what was streamed (`reason: 'recorded'`; the recorded text follows).
   */
  | { type: 'reset-step'; step: number; attempt: number; reason: 'retry' | 'recorded' }
  | { type: 'tool-call'; step: number; toolCallId: string; toolName: string; input: JsonValue }
  | {
      type: 'tool-result';
      step: number;
      toolCallId: string;
      toolName: string;
      outcome: EventOf<'tool-result'>['outcome'];
      output: JsonValue;
    }
  /**
   * A tool call waits for a person. Decide with `run.approve(approvalId, { token })` / `run.deny(...)`: the
   * approval id is the tool call id, and the token makes the decision answer this very request.
   */
  | {
      type: 'tool-approval-request';
      step: number;
      approvalId: string;
      token?: string;
      toolCall: { toolCallId: string; toolName: string; input: JsonValue };
    }
  /** A client-side tool call waits for `run.submitToolResult(toolCallId, output)`. */
  | { type: 'tool-result-request'; step: number; toolCallId: string; toolName: string; input: JsonValue }
  /** An MCP server asks a person a question: answer with `run.respondToElicitation(id, answer, { token })`. */
  | {
      type: 'elicitation-request';
      id: string;
      token?: string;
      toolCallId: string;
      toolName: string;
      serverName: string;
      message: string;
      requestedSchema: JsonValue;
    }
  | { type: 'finish-step'; step: number; finishReason: string; usage: Usage }
  | { type: 'finish'; text: string; finishReason: string; stopReason: string }
  | { type: 'error'; error: string; errorType?: string }
  | { type: 'abort' }
  /** Items `[missedFrom, offset)` were dropped from the run's bounded log before this watcher read them. */
  | { type: 'truncated'; missedFrom: number }
  /**
   * The run's live stream (Redis) could not be read: no more model output or progress comes live. The run's events
   * follow from the run itself, so each step's recorded text still completes what streamed, and the run's end comes.
   */
  | { type: 'live-unavailable'; reason: string }
  /** Any other run event (tool started and progress, approval decisions, MCP listings, continue-as-new, ...). */
  | { type: 'run-event'; event: RunEvent }
);

/** A streamed part of a step (text, reasoning or a tool call's input). */
interface OpenPart {
  kind: DeltaKind;
  text: string;
  open: boolean;
}

/** What the assembler knows of one step. */
interface StepPieces {
  /** The attempt whose pieces are shown (0: none shown yet). */
  attempt: number;
  /**
   * Read without a gap since the step started (or since its attempt's reset): its pieces are complete from their
   * beginning. A `truncated` part clears it.
   */
  whole: boolean;
  /** The step's parts by id, in the order they started. */
  parts: Map<string, OpenPart>;
  /** The step's recorded message arrived (its text event, or the step finished): later pieces are stale. */
  recorded: boolean;
}

const START = { text: 'text-start', reasoning: 'reasoning-start', 'tool-input': 'tool-input-start' } as const;
const END = { text: 'text-end', reasoning: 'reasoning-end', 'tool-input': 'tool-input-end' } as const;

/**
 * Turns a run's stream parts into {@link FullStreamPart}s, in order. Push every part of the stream from its start
 * (offset 0, or the oldest one the run holds) and show only the parts at or after the offset you resume from: the
 * assembler then knows each step's text so far, so a resumed watcher gets exactly what comes after (see
 * `fullStreamFrom`).
 *
 * - Pieces with the same part id in one step's attempt concatenate; a `*-start` part opens each part.
 * - A `reset-step` (or a piece of a newer attempt) voids what earlier attempts of the step showed: a `reset-step`
 *   part, when something was shown. Pieces of an older attempt than the one shown are dropped.
 * - The step's `text` event is its recorded text: it completes what was streamed (the rest as one delta), stands in
 *   for it when nothing was streamed, and replaces it (after a `reset-step` part) when the two differ.
 */
export class FullStreamAssembler {
  private readonly steps = new Map<number, StepPieces>();

  /** The full-stream parts `part` makes, in order (none for items that add nothing, such as a stale piece). */
  push(part: RunStreamPart): FullStreamPart[] {
    const out: FullStreamPart[] = [];
    const { offset } = part;
    switch (part.type) {
      case 'truncated':
        out.push({ offset, type: 'truncated', missedFrom: part.missedFrom });
        // What the dropped items held is unknown: a step's pieces seen from now on may lack their beginning.
        for (const step of this.steps.values()) step.whole = false;
        break;
      case 'live-unavailable':
        out.push({ offset, type: 'live-unavailable', reason: part.reason });
        break;
      case 'progress':
        // Shown through its `tool-progress` event on the events topic.
        break;
      case 'deltas': {
        const item = part.deltas;
        if (!isDeltas(item)) break;
        const step = this.step(item.step);
        if (step.recorded || item.attempt < step.attempt) break;
        if (item.attempt > step.attempt) this.restart(step, item.step, item.attempt, offset, out);
        if (item.type === 'reset-step') {
          step.whole = true;
          break;
        }
        for (const raw of item.parts) {
          const piece = pieceOf(raw);
          if (piece) this.piece(step, item.step, piece, offset, out);
        }
        break;
      }
      case 'event':
        this.event(part.event, offset, out);
        break;
    }
    return out;
  }

  private step(number: number): StepPieces {
    let step = this.steps.get(number);
    if (!step) this.steps.set(number, (step = { attempt: 0, whole: false, parts: new Map(), recorded: false }));
    return step;
  }

  /** Attempt `attempt` of the step starts over: what earlier attempts showed is void. */
  private restart(step: StepPieces, number: number, attempt: number, offset: number, out: FullStreamPart[]): void {
    if (step.parts.size > 0) out.push({ offset, type: 'reset-step', step: number, attempt, reason: 'retry' });
    step.parts.clear();
    step.attempt = attempt;
  }

  private piece(
    step: StepPieces,
    number: number,
    piece: { id: string; kind: DeltaKind; text: string; toolName?: string },
    offset: number,
    out: FullStreamPart[],
  ): void {
    const { attempt } = step;
    let open = step.parts.get(piece.id);
    if (!open) {
      step.parts.set(piece.id, (open = { kind: piece.kind, text: '', open: true }));
      if (piece.kind === 'tool-input') {
        out.push({
          offset,
          type: 'tool-input-start',
          step: number,
          attempt,
          id: piece.id,
          toolName: piece.toolName ?? '',
        });
      } else {
        out.push({ offset, type: START[piece.kind], step: number, attempt, id: piece.id });
      }
    }
    if (!open.open || open.kind !== piece.kind || piece.text === '') return;
    open.text += piece.text;
    if (piece.kind === 'tool-input') {
      out.push({ offset, type: 'tool-input-delta', step: number, attempt, id: piece.id, delta: piece.text });
    } else {
      const type = piece.kind === 'text' ? 'text-delta' : 'reasoning-delta';
      out.push({ offset, type, step: number, attempt, id: piece.id, text: piece.text });
    }
  }

  /** Ends the step's open parts of `kinds`. */
  private close(step: StepPieces, number: number, kinds: DeltaKind[], offset: number, out: FullStreamPart[]): void {
    for (const [id, part] of step.parts) {
      if (!part.open || !kinds.includes(part.kind)) continue;
      part.open = false;
      out.push({ offset, type: END[part.kind], step: number, attempt: step.attempt, id });
    }
  }

  private event(event: RunEvent, offset: number, out: FullStreamPart[]): void {
    switch (event.type) {
      case 'run-started':
        out.push({ offset, type: 'start', agentName: event.agentName });
        return;
      case 'step-started':
        this.step(event.step).whole = true;
        out.push({ offset, type: 'start-step', step: event.step });
        return;
      case 'text':
        this.recordedText(event.step, event.text, offset, out);
        return;
      case 'tool-call': {
        const step = this.step(event.step);
        // The step's text event comes before its calls: none came, so the step recorded no text (see step-finished).
        const streamedText = [...step.parts.values()].some((part) => part.kind === 'text');
        if (!step.recorded && streamedText) this.recordedText(event.step, '', offset, out);
        const part = step.parts.get(event.toolCallId);
        if (part?.open && part.kind === 'tool-input') {
          part.open = false;
          out.push({ offset, type: 'tool-input-end', step: event.step, attempt: step.attempt, id: event.toolCallId });
        }
        out.push({
          offset,
          type: 'tool-call',
          step: event.step,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: event.args,
        });
        return;
      }
      case 'tool-result':
        out.push({
          offset,
          type: 'tool-result',
          step: event.step,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          outcome: event.outcome,
          output: event.output,
        });
        return;
      case 'approval-requested':
        out.push({
          offset,
          type: 'tool-approval-request',
          step: event.step,
          approvalId: event.toolCallId,
          ...(event.token !== undefined ? { token: event.token } : {}),
          toolCall: { toolCallId: event.toolCallId, toolName: event.toolName, input: event.args },
        });
        return;
      case 'tool-result-requested':
        out.push({
          offset,
          type: 'tool-result-request',
          step: event.step,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: event.args,
        });
        return;
      case 'elicitation-requested':
        out.push({
          offset,
          type: 'elicitation-request',
          id: event.id,
          ...(event.token !== undefined ? { token: event.token } : {}),
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          serverName: event.serverName,
          message: event.message,
          requestedSchema: event.requestedSchema,
        });
        return;
      case 'step-finished': {
        const step = this.step(event.step);
        // No text event: the step recorded no text (the run records no empty one), so text that streamed of it (from
        // an attempt retried by one that published nothing) is void. Before the calls: a UI `reset-step` drops every
        // part of the step the page has.
        if (!step.recorded) this.recordedText(event.step, '', offset, out);
        this.close(step, event.step, ['text', 'reasoning', 'tool-input'], offset, out);
        step.recorded = true;
        // Its recorded message stands: what was streamed of it is not needed any more (a long run stays small).
        step.parts.clear();
        out.push({
          offset,
          type: 'finish-step',
          step: event.step,
          finishReason: event.finishReason,
          usage: event.usage,
        });
        return;
      }
      case 'finished':
        this.closeAll(offset, out);
        out.push({
          offset,
          type: 'finish',
          text: event.text,
          finishReason: event.finishReason,
          stopReason: event.stopReason,
        });
        return;
      case 'cancelled':
        this.closeAll(offset, out);
        out.push({ offset, type: 'abort' });
        return;
      case 'failed':
        this.closeAll(offset, out);
        out.push({
          offset,
          type: 'error',
          error: event.message,
          ...(event.errorType !== undefined ? { errorType: event.errorType } : {}),
        });
        return;
      default:
        out.push({ offset, type: 'run-event', event });
    }
  }

  private closeAll(offset: number, out: FullStreamPart[]): void {
    for (const [number, step] of this.steps) this.close(step, number, ['text', 'reasoning', 'tool-input'], offset, out);
  }

  /** The step's recorded text (a preview when longer than the event log keeps): it supersedes the pieces. */
  private recordedText(number: number, recorded: string, offset: number, out: FullStreamPart[]): void {
    const step = this.step(number);
    const texts = [...step.parts].filter(([, part]) => part.kind === 'text');
    const streamed = texts.map(([, part]) => part.text).join('');
    const preview = previewPrefix(recorded);
    const known = preview ?? recorded;
    let rest: string | undefined;
    if (texts.length === 0) {
      rest = undefined;
    } else if (step.whole) {
      // Complete from its beginning: the recorded text must go on from what was streamed.
      if (preview !== undefined && streamed.startsWith(preview)) rest = '';
      else if (known.startsWith(streamed)) rest = known.slice(streamed.length);
    } else {
      // Seen from the middle (after a truncation): place what was seen in the recorded text.
      const at = known.lastIndexOf(streamed);
      rest = at >= 0 ? known.slice(at + streamed.length) : '';
    }
    if (rest === undefined && texts.length > 0) {
      // The recorded message differs from the pieces: it stands, in place of what was shown.
      out.push({ offset, type: 'reset-step', step: number, attempt: step.attempt, reason: 'recorded' });
      for (const part of step.parts.values()) part.open = false;
      step.parts.clear();
    }
    const open = texts.filter(([, part]) => part.open).at(-1);
    if (rest !== undefined && open) {
      const [id, part] = open;
      if (rest !== '') {
        part.text += rest;
        out.push({ offset, type: 'text-delta', step: number, attempt: step.attempt, id, text: rest });
      }
    } else if (rest === undefined && recorded !== '') {
      const id = `step-${number}-text`;
      step.parts.set(id, { kind: 'text', text: recorded, open: true });
      out.push({ offset, type: 'text-start', step: number, attempt: step.attempt, id });
      out.push({ offset, type: 'text-delta', step: number, attempt: step.attempt, id, text: recorded });
    }
    this.close(step, number, ['text', 'reasoning'], offset, out);
    step.recorded = true;
  }
}

/** The text of a preview (`previewText`) without its `… (N chars)` marker; undefined for a whole text. */
function previewPrefix(text: string): string | undefined {
  const match = /… \((\d+) chars\)$/.exec(text);
  if (!match || match.index !== EVENT_OUTPUT_PREVIEW_CHARS) return undefined;
  return Number(match[1]) > EVENT_OUTPUT_PREVIEW_CHARS ? text.slice(0, match.index) : undefined;
}

/** A `deltas` item as the run publishes it (the workflow checks publishes; a client still reads them defensively). */
function isDeltas(
  value: unknown,
): value is
  | { type: 'deltas'; step: number; attempt: number; parts: unknown[] }
  | { type: 'reset-step'; step: number; attempt: number } {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as { type?: unknown; step?: unknown; attempt?: unknown; parts?: unknown };
  if (!Number.isSafeInteger(item.step) || !Number.isSafeInteger(item.attempt)) return false;
  return item.type === 'reset-step' || (item.type === 'deltas' && Array.isArray(item.parts));
}

/** What an AI SDK stream part of the `deltas` topic adds to a step's part (`text` '' for a start), or undefined. */
function pieceOf(value: unknown): { id: string; kind: DeltaKind; text: string; toolName?: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const part = value as { type?: unknown; id?: unknown; text?: unknown; delta?: unknown; toolName?: unknown };
  if (typeof part.id !== 'string') return undefined;
  const { id } = part;
  switch (part.type) {
    case 'text-start':
    case 'reasoning-start':
      return { id, kind: part.type === 'text-start' ? 'text' : 'reasoning', text: '' };
    case 'text-delta':
    case 'reasoning-delta':
      if (typeof part.text !== 'string') return undefined;
      return { id, kind: part.type === 'text-delta' ? 'text' : 'reasoning', text: part.text };
    case 'tool-input-start':
      return typeof part.toolName === 'string'
        ? { id, kind: 'tool-input', text: '', toolName: part.toolName }
        : undefined;
    case 'tool-input-delta':
      return typeof part.delta === 'string' ? { id, kind: 'tool-input', text: part.delta } : undefined;
    default:
      // An `*-end` (the step's recorded message ends its parts) or a part of a newer version.
      return undefined;
  }
}

/**
 * The full stream of `parts` (read from the start of the run's stream), showing the parts at or after `from`.
 * Ends after the run's terminal part.
 */
export async function* toFullStream(
  parts: AsyncIterable<RunStreamPart>,
  options: { from?: number } = {},
): AsyncGenerator<FullStreamPart> {
  const from = Math.max(0, Math.trunc(options.from ?? 0));
  const assembler = new FullStreamAssembler();
  for await (const part of parts) {
    for (const full of assembler.push(part)) {
      if (full.offset < from) continue;
      // A gap that began before `from` and ends at or after it is only the part this watcher had not read.
      yield full.type === 'truncated' && full.missedFrom < from ? { ...full, missedFrom: from } : full;
      if (full.type === 'finish' || full.type === 'error' || full.type === 'abort') return;
    }
  }
}

/** What a reader that cannot take text back shows next of a step's text (see {@link ShownText}). */
export type ShownChange =
  | { type: 'text'; step: number; text: string }
  /** What was shown of the step is void (attempt `attempt` wrote other words, or its record differs): `text` instead. */
  | { type: 'void'; step: number; attempt: number; reason: 'retry' | 'recorded'; text: string };

/**
 * Each step's text as a reader that cannot take text back shows it (a string stream, a terminal). After a retry's
 * `reset-step`, the new attempt's text is held back while it repeats what was shown: a retry that rewrites the same
 * words (a deterministic model, a provider replaying) goes on from there with no duplicated prefix. One that writes
 * other words, or a step whose record differs, is a `void` change: the reader says so as it can.
 */
export class ShownText {
  private readonly shown = new Map<number, string>();
  /** A retried step's new attempt: its text so far, held back while it repeats what was shown. */
  private readonly retrying = new Map<number, { attempt: number; text: string }>();

  /** What the step's reader shows now. */
  of(step: number): string {
    return this.shown.get(step) ?? '';
  }

  /** What `part` changes of the text shown (undefined: nothing). */
  push(part: FullStreamPart): ShownChange | undefined {
    if (part.type !== 'text-delta' && part.type !== 'text-end' && part.type !== 'reset-step') return undefined;
    const { step } = part;
    const shown = this.of(step);
    const retry = this.retrying.get(step);
    if (part.type === 'reset-step') {
      if (shown === '') return undefined;
      if (part.reason === 'retry') {
        this.retrying.set(step, { attempt: part.attempt, text: '' });
        return undefined;
      }
      this.retrying.delete(step);
      this.shown.delete(step);
      return { type: 'void', step, attempt: part.attempt, reason: 'recorded', text: '' };
    }
    if (!retry) {
      if (part.type === 'text-end' || part.text === '') return undefined;
      this.shown.set(step, shown + part.text);
      return { type: 'text', step, text: part.text };
    }
    if (part.type === 'text-delta') retry.text += part.text;
    // Held while it repeats what was shown, unless the step's text ends there (its record is shorter than the screen).
    const ended = part.type === 'text-end';
    if (shown.startsWith(retry.text) && (!ended || retry.text === shown)) {
      if (ended) this.retrying.delete(step);
      return undefined;
    }
    this.retrying.delete(step);
    this.shown.set(step, retry.text);
    if (retry.text.startsWith(shown)) return { type: 'text', step, text: retry.text.slice(shown.length) };
    return { type: 'void', step, attempt: retry.attempt, reason: ended ? 'recorded' : 'retry', text: retry.text };
  }
}

/**
 * The text a plain string stream yields, per step (see {@link ShownText}). A string cannot be taken back: a retry that
 * writes different words than were already yielded is yielded position by position (what goes beyond the length
 * already yielded), so the concatenation is the final text only when the retry repeats the words. Use the full
 * stream's `reset-step` parts to be exact.
 */
export class TextStreamAssembler {
  private readonly text = new ShownText();
  private readonly yielded = new Map<number, number>();

  /** The text `part` adds to the stream ('' for none). */
  push(part: FullStreamPart): string {
    const change = this.text.push(part);
    if (!change) return '';
    const now = this.text.of(change.step);
    const yielded = this.yielded.get(change.step) ?? 0;
    if (now.length <= yielded) return '';
    this.yielded.set(change.step, now.length);
    return now.slice(yielded);
  }
}

/** The text of a full stream, as it is written (see {@link TextStreamAssembler}). */
export async function* toTextStream(parts: AsyncIterable<FullStreamPart>): AsyncGenerator<string> {
  const text = new TextStreamAssembler();
  for await (const part of parts) {
    const added = text.push(part);
    if (added !== '') yield added;
  }
}
