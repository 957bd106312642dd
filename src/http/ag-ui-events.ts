// Maps a run's stream to AG-UI 1.0 events (`@ag-ui/core`): text (live from the model's deltas when the run
// publishes them) and tool-call events per step, and a `RUN_FINISHED` whose outcome is an interrupt for each pending
// approval and each MCP question when the run waits for a person. An interrupt's id carries what answering it needs
// (the request's id and token, where to read on), so a resume names exactly the request the page was shown.
import { EventType, type AGUIEvent, type Interrupt, type Message } from '@ag-ui/core';
import {
  TERMINAL_EVENT_TYPES,
  type JsonValue,
  type RunEvent,
  type RunState,
  type DeltaPart,
  type StreamedDeltas,
} from '../protocol/index.js';
import { AgUiThreadCopy } from './ag-ui-messages.js';
import { marked } from './ag-ui-thread.js';
import type { WebStreamPart } from './ui-message-chunks.js';

/** What an interrupt id stands for. */
export interface InterruptRef {
  kind: 'approval' | 'elicitation';
  /** The tool call id (approval) or the question id (elicitation). */
  id: string;
  /** The run's token of the request. */
  token: string;
  /** Where the resumed run's stream goes on. */
  offset: number;
}

const PREFIX = 'da1.';
/** Longest interrupt id read back (ids and tokens are bounded well below this). */
const MAX_INTERRUPT_ID = 2_000;

/** The interrupt id of a request. */
export function interruptIdOf(ref: InterruptRef): string {
  const json = JSON.stringify({ k: ref.kind, i: ref.id, t: ref.token, o: ref.offset });
  return `${PREFIX}${Buffer.from(json, 'utf8').toString('base64url')}`;
}

/** The request an interrupt id names, or undefined when it is not one of this handler's. */
export function parseInterruptId(interruptId: string): InterruptRef | undefined {
  if (!interruptId.startsWith(PREFIX) || interruptId.length > MAX_INTERRUPT_ID) return undefined;
  try {
    const value = JSON.parse(Buffer.from(interruptId.slice(PREFIX.length), 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    const { k, i, t, o } = value;
    if ((k !== 'approval' && k !== 'elicitation') || typeof i !== 'string' || typeof t !== 'string') return undefined;
    if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0) return undefined;
    return { kind: k, id: i, token: t, offset: o };
  } catch {
    return undefined;
  }
}

/** The answer an approval interrupt expects in `resume[].payload`. */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['approved'],
} as const;

/** A text message this response streams from a step's model deltas. */
interface StreamedText {
  messageId: string;
  /** What the client was sent of it (by this response or one before). */
  text: string;
  /** Whether this response wrote its TEXT_MESSAGE_START (a response that joins mid-message opens it again). */
  opened: boolean;
}

/** A tool call whose input this response streams from a step's model deltas (its holder message has its id). */
interface StreamedCall {
  toolCallId: string;
  toolName: string;
  /** The input text the client was sent (by this response or one before). */
  args: string;
  /** Whether this response wrote its TOOL_CALL_START. */
  opened: boolean;
}

/** Where an AG-UI response reads a turn: the AG-UI thread and run, the conversation's turn, the client's messages. */
export interface AgUiResponseContext {
  threadId: string;
  runId: string;
  /** The conversation's turn this response streams (message ids and marks name it). */
  turn: number;
  /** The thread as the client sent it with the request (`RunAgentInput.messages`). */
  messages: readonly Message[];
}

/**
 * Turns the run's stream parts into AG-UI events for one response. Text streams live from the step's model deltas
 * when the run publishes them, else comes from each step's final `text` event; the final text ends the streamed
 * message (adding what the deltas missed). A retried model call voids what its earlier attempt streamed: those
 * messages are ended and dropped from the client with a `MESSAGES_SNAPSHOT` of its thread without them. Every
 * message event carries the turn and the offset after its part (`ag-ui-thread.ts`), and message ids are the turn's,
 * not the response's, so a client that rejoins mid-message goes on with the message it holds.
 */
export class AgUiEventMapper {
  ended = false;
  /**
   * The step this response opened and has not finished. A response that starts mid-step (after an interrupt, or on
   * a reconnect) finishes only steps it started, and finishes its open step before the run does: AG-UI clients
   * refuse a STEP_FINISHED without its STEP_STARTED and a RUN_FINISHED with a step still active.
   */
  private openStep: string | undefined;
  /** The step and attempt whose deltas are streamed, and their text messages by the provider's part id. */
  private deltaStep: number | undefined;
  private attempt = 0;
  private readonly texts = new Map<string, StreamedText>();
  /** The tool calls whose input the current attempt streams, by call id. */
  private readonly calls = new Map<string, StreamedCall>();
  /** Streamed messages a retried attempt voided; dropped from the client while it still holds any. */
  private readonly voided = new Set<string>();
  private readonly thread: AgUiThreadCopy;
  /** The offset after the part being mapped, for the marks. */
  private next = 0;

  constructor(private readonly context: AgUiResponseContext) {
    this.thread = new AgUiThreadCopy(context.messages);
  }

  /** The response's first events: RUN_STARTED and, for a new message, the thread echoed with it marked as sent. */
  start(snapshot?: Message[]): AGUIEvent[] {
    const out: AGUIEvent[] = [];
    this.emit(out, { type: EventType.RUN_STARTED, threadId: this.context.threadId, runId: this.context.runId });
    if (snapshot) this.emit(out, { type: EventType.MESSAGES_SNAPSHOT, messages: snapshot });
    return out;
  }

  /** The events of one part; `next` is the offset after it. */
  map(part: WebStreamPart, next: number): AGUIEvent[] {
    this.next = next;
    const out: AGUIEvent[] = [];
    this.dropVoided(out);
    if (part.type === 'deltas') this.deltas(part.deltas, out);
    else if (part.type === 'event') this.event(part.event, out);
    return out;
  }

  /**
   * A part from before where this response writes: the client was sent it by an earlier response. It tells what the
   * client's streamed messages hold, so this response goes on with them (or drops them, if the run voided them).
   */
  seen(part: WebStreamPart): void {
    if (part.type === 'deltas') {
      this.deltas(part.deltas, undefined);
    } else if (part.type === 'event') {
      const { event } = part;
      if (event.type === 'text') this.finalText(event.step, event.text, undefined);
      else if (event.type === 'tool-call') this.finalCall(event, undefined);
      else if (event.type === 'step-finished') this.stepDone(event.step, undefined);
    }
  }

  private event(event: RunEvent, out: AGUIEvent[]): void {
    switch (event.type) {
      case 'step-started': {
        this.finishStep(out);
        this.openStep = `step-${event.step}`;
        this.emit(out, { type: EventType.STEP_STARTED, stepName: this.openStep });
        return;
      }
      case 'step-finished':
        this.stepDone(event.step, out);
        if (this.openStep === `step-${event.step}`) this.finishStep(out);
        return;
      case 'text':
        this.finalText(event.step, event.text, out);
        return;
      case 'tool-call':
        this.finalCall(event, out);
        return;
      case 'tool-result':
        this.emit(out, {
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${this.context.runId}-result-${event.toolCallId}`,
          toolCallId: event.toolCallId,
          role: 'tool',
          content: contentOf(event.outcome, event.output),
        });
        return;
      case 'finished':
        this.finish(out, { type: 'success' });
        return;
      case 'cancelled':
        this.finish(out, { type: 'cancelled' });
        return;
      case 'failed':
        this.endStreamed(out);
        this.ended = true;
        this.emit(out, { type: EventType.RUN_ERROR, message: `The run failed: ${event.message}` });
        return;
      default:
        if (TERMINAL_EVENT_TYPES.has(event.type)) this.finish(out, { type: 'success' });
    }
  }

  /**
   * Model deltas of a step's attempt: its text streams as messages of that attempt, a tool call's input as the call's
   * arguments. `out` undefined: only seen.
   */
  private deltas(deltas: StreamedDeltas, out: AGUIEvent[] | undefined): void {
    if (deltas.step !== this.deltaStep) {
      // A new step: what the step before streamed and its final message did not end is void.
      this.voidStreamed(out);
      this.deltaStep = deltas.step;
      this.attempt = deltas.attempt;
    }
    if (deltas.attempt < this.attempt) return;
    if (deltas.attempt > this.attempt || deltas.type === 'reset-step') {
      // A new attempt of the step: what earlier attempts wrote is void.
      this.voidStreamed(out);
      this.attempt = deltas.attempt;
    }
    if (deltas.type === 'reset-step') return;
    for (const piece of deltas.parts) {
      // Reasoning is not streamed: AG-UI runs have none to show.
      if (piece.kind === 'text') this.textPiece(deltas.step, deltas.attempt, piece, out);
      else if (piece.kind === 'tool-input') this.inputPiece(piece, out);
    }
  }

  private textPiece(step: number, attempt: number, piece: DeltaPart, out: AGUIEvent[] | undefined): void {
    if (piece.text === '') return;
    let text = this.texts.get(piece.id);
    if (!text) {
      text = { messageId: this.messageId(step, `a${attempt}-${piece.id}`), text: '', opened: false };
      this.texts.set(piece.id, text);
    }
    text.text += piece.text;
    if (out) {
      this.open(text, out);
      this.emit(out, { type: EventType.TEXT_MESSAGE_CONTENT, messageId: text.messageId, delta: piece.text });
    }
  }

  private inputPiece(piece: DeltaPart, out: AGUIEvent[] | undefined): void {
    let call = this.calls.get(piece.id);
    if (!call) {
      // Call ids are the provider's: a retry may reuse one of its void attempt's, which the client then holds anew.
      this.voided.delete(piece.id);
      call = { toolCallId: piece.id, toolName: piece.toolName ?? 'unknown', args: '', opened: false };
      this.calls.set(piece.id, call);
    }
    if (out) this.openCall(call, out);
    call.args += piece.text;
    if (out && piece.text !== '') {
      this.emit(out, { type: EventType.TOOL_CALL_ARGS, toolCallId: call.toolCallId, delta: piece.text });
    }
  }

  /**
   * A step's tool call. When its input streamed as the same call (name and arguments), the call ends; otherwise
   * what streamed is dropped and the call is written whole.
   */
  private finalCall(event: Extract<RunEvent, { type: 'tool-call' }>, out: AGUIEvent[] | undefined): void {
    const call = this.deltaStep === event.step ? this.calls.get(event.toolCallId) : undefined;
    if (call) {
      this.calls.delete(call.toolCallId);
      if (call.toolName === event.toolName && sameJson(call.args, event.args)) {
        if (out) {
          this.openCall(call, out);
          this.emit(out, { type: EventType.TOOL_CALL_END, toolCallId: call.toolCallId });
        }
        return;
      }
      if (out && call.opened) this.emit(out, { type: EventType.TOOL_CALL_END, toolCallId: call.toolCallId });
      if (out) this.dropMessages(out, new Set([call.toolCallId]));
    }
    if (!out) return;
    this.emit(out, { type: EventType.TOOL_CALL_START, toolCallId: event.toolCallId, toolCallName: event.toolName });
    this.emit(out, { type: EventType.TOOL_CALL_ARGS, toolCallId: event.toolCallId, delta: JSON.stringify(event.args) });
    this.emit(out, { type: EventType.TOOL_CALL_END, toolCallId: event.toolCallId });
  }

  /**
   * A step's final text. When its deltas streamed a beginning of it, only the rest is added and the streamed
   * messages end; when they streamed something else (a provider that rewrote its output), they are void and the
   * text is a message of its own.
   */
  private finalText(step: number, text: string, out: AGUIEvent[] | undefined): void {
    const texts = this.deltaStep === step ? [...this.texts.values()] : [];
    const shown = texts.map((t) => t.text).join('');
    if (texts.length > 0 && text.startsWith(shown)) {
      this.texts.clear();
      if (!out) return;
      const last = texts[texts.length - 1]!;
      if (text.length > shown.length) {
        this.open(last, out);
        this.emit(out, {
          type: EventType.TEXT_MESSAGE_CONTENT,
          messageId: last.messageId,
          delta: text.slice(shown.length),
        });
      }
      for (const streamed of texts) {
        this.open(streamed, out);
        this.emit(out, { type: EventType.TEXT_MESSAGE_END, messageId: streamed.messageId });
      }
      return;
    }
    if (texts.length > 0) {
      this.endTexts(out, true);
      if (out) this.dropVoided(out);
    }
    if (text === '' || !out) return;
    const messageId = this.messageId(step, 'text');
    this.emit(out, { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    this.emit(out, { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text });
    this.emit(out, { type: EventType.TEXT_MESSAGE_END, messageId });
  }

  /** A step ended: what it streamed and its final message did not hold is void. */
  private stepDone(step: number, out: AGUIEvent[] | undefined): void {
    if (this.deltaStep === step) this.voidStreamed(out);
  }

  /** Ends what the current attempt streams and drops it from the client. */
  private voidStreamed(out: AGUIEvent[] | undefined): void {
    this.endCalls(out, true);
    this.endTexts(out, true);
    if (out) this.dropVoided(out);
  }

  /** Ends the streamed texts this response opened and forgets them; `voided`: they are to be dropped too. */
  private endTexts(out: AGUIEvent[] | undefined, voided: boolean): void {
    for (const text of this.texts.values()) {
      if (voided) this.voided.add(text.messageId);
      if (out && text.opened) this.emit(out, { type: EventType.TEXT_MESSAGE_END, messageId: text.messageId });
    }
    this.texts.clear();
  }

  /** Ends the streamed calls this response opened and forgets them; `voided`: they are to be dropped too. */
  private endCalls(out: AGUIEvent[] | undefined, voided: boolean): void {
    for (const call of this.calls.values()) {
      if (voided) this.voided.add(call.toolCallId);
      if (out && call.opened) this.emit(out, { type: EventType.TOOL_CALL_END, toolCallId: call.toolCallId });
    }
    this.calls.clear();
  }

  /** A `MESSAGES_SNAPSHOT` without the void messages, when the client holds any. */
  private dropVoided(out: AGUIEvent[]): void {
    if (this.voided.size === 0) return;
    this.dropMessages(out, this.voided);
    // Once dropped, a void message stays gone (a call id a retry reuses is taken out of the set when it streams).
    this.voided.clear();
  }

  /** A `MESSAGES_SNAPSHOT` of the client's thread without the messages `ids` names, when it holds any. */
  private dropMessages(out: AGUIEvent[], ids: ReadonlySet<string>): void {
    if (![...ids].some((id) => this.thread.has(id))) return;
    this.emit(out, { type: EventType.MESSAGES_SNAPSHOT, messages: this.thread.without(ids) });
  }

  /** Ends what streamed as it is (a run that stops mid-answer keeps what it wrote). */
  private endStreamed(out: AGUIEvent[]): void {
    this.endTexts(out, false);
    this.endCalls(out, false);
  }

  /** Writes a streamed text's TEXT_MESSAGE_START once per response (the client's message goes on when it has it). */
  private open(text: StreamedText, out: AGUIEvent[]): void {
    if (text.opened) return;
    text.opened = true;
    this.emit(out, { type: EventType.TEXT_MESSAGE_START, messageId: text.messageId, role: 'assistant' });
  }

  /**
   * Writes a streamed call's TOOL_CALL_START once per response, with the input the client does not hold yet. A client
   * that holds another version of the call (from an attempt retried while it was away) has it dropped first.
   */
  private openCall(call: StreamedCall, out: AGUIEvent[]): void {
    if (call.opened) return;
    call.opened = true;
    let held = this.thread.toolCallArguments(call.toolCallId);
    if (held !== undefined && held !== call.args) {
      this.dropMessages(out, new Set([call.toolCallId]));
      held = undefined;
    }
    this.emit(out, { type: EventType.TOOL_CALL_START, toolCallId: call.toolCallId, toolCallName: call.toolName });
    if (held === undefined && call.args !== '') {
      this.emit(out, { type: EventType.TOOL_CALL_ARGS, toolCallId: call.toolCallId, delta: call.args });
    }
  }

  /** A message id of this turn's step: the same in every response that streams the turn. */
  private messageId(step: number, suffix: string): string {
    return `turn${this.context.turn}-step${step}-${suffix}`;
  }

  /** Adds `event` to `out`, marked with the client's position, and applies it to the copy of the client's thread. */
  private emit(out: AGUIEvent[], event: AGUIEvent): void {
    const written = marked(event, { turn: this.context.turn, offset: this.next });
    this.thread.apply(written);
    out.push(written);
  }

  /** The run waits for people: an interrupt for each pending approval and question (from the run's own state). */
  waiting(offset: number, state: RunState): AGUIEvent[] {
    const interrupts: Interrupt[] = [];
    for (const approval of state.pendingApprovals) {
      if (approval.token === undefined) continue;
      interrupts.push({
        id: interruptIdOf({ kind: 'approval', id: approval.toolCallId, token: approval.token, offset }),
        reason: 'tool_approval',
        message: `Allow ${approval.toolName} to run?`,
        toolCallId: approval.toolCallId,
        responseSchema: APPROVAL_RESPONSE_SCHEMA,
        ...(approval.expiresAt !== undefined ? { expiresAt: approval.expiresAt } : {}),
        metadata: { toolName: approval.toolName, args: approval.args },
      });
    }
    for (const question of state.pendingElicitations) {
      if (question.token === undefined) continue;
      interrupts.push({
        id: interruptIdOf({ kind: 'elicitation', id: question.id, token: question.token, offset }),
        reason: 'mcp_elicitation',
        message: question.message,
        toolCallId: question.toolCallId,
        responseSchema: question.requestedSchema,
        ...(question.expiresAt !== undefined ? { expiresAt: question.expiresAt } : {}),
        metadata: { serverName: question.serverName, toolName: question.toolName },
      });
    }
    const out: AGUIEvent[] = [];
    if (interrupts.length === 0) {
      // Only client-side tool results are awaited: a completed AG-UI run that names them.
      this.finish(out, { type: 'success', pendingToolCallIds: state.pendingToolResults.map((t) => t.toolCallId) });
    } else {
      this.finish(out, { type: 'interrupt', interrupts });
    }
    return out;
  }

  /** The last events when the stream ended without a terminal event (a terminated run). */
  closed(): AGUIEvent[] {
    const out: AGUIEvent[] = [];
    this.finish(out, { type: 'success' });
    return out;
  }

  private finishStep(out: AGUIEvent[]): void {
    const step = this.openStep;
    this.openStep = undefined;
    if (step !== undefined) this.emit(out, { type: EventType.STEP_FINISHED, stepName: step });
  }

  private finish(out: AGUIEvent[], outcome: Extract<AGUIEvent, { type: EventType.RUN_FINISHED }>['outcome']): void {
    this.ended = true;
    this.dropVoided(out);
    this.endStreamed(out);
    this.finishStep(out);
    const { threadId, runId } = this.context;
    this.emit(out, { type: EventType.RUN_FINISHED, threadId, runId, ...(outcome ? { outcome } : {}) });
  }
}

/** Whether streamed input text is the JSON value a call was made with. */
function sameJson(text: string, value: JsonValue): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function contentOf(outcome: string, output: JsonValue): string {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  return outcome === 'ok' || outcome === 'client-result' ? text : `${outcome}: ${text}`;
}
