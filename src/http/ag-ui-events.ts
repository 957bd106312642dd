// Maps a run's stream to AG-UI 1.0 events (`@ag-ui/core`) from its assembled parts (`FullStreamAssembler`, the one
// place that knows steps, attempts and resets): text and tool-call events per step, and a `RUN_FINISHED` whose
// outcome is an interrupt for each pending approval and MCP question when the run waits for a person.
import { EventType, type AGUIEvent, type Message } from '@ag-ui/core';
import { FullStreamAssembler, type FullStreamPart } from '../client/full-stream.js';
import { TERMINAL_EVENT_TYPES, type JsonValue, type RunState } from '../protocol/index.js';
import { interruptsOf } from './ag-ui-interrupts.js';
import { AgUiThreadCopy } from './ag-ui-messages.js';
import { marked } from './ag-ui-thread.js';
import type { WebStreamPart } from './ui-message-chunks.js';

export { interruptIdOf, parseInterruptId, type InterruptRef } from './ag-ui-interrupts.js';

/** A message this response streams: a text (by message id) or a tool call's input (by call id). */
interface Streamed {
  step: number;
  /** The message id (a text) or the tool call id. */
  id: string;
  /** The tool's name (a call). */
  toolName?: string;
  /** What the client was sent of it, by this response or one before (a call: its input text). */
  text: string;
  /** Whether this response wrote its TEXT_MESSAGE_START / TOOL_CALL_START (one that joins mid-message opens it again). */
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
 * when the run publishes them, else comes from each step's final `text` event. What the assembler voids (a retried
 * attempt, a recorded message that differs) is ended and dropped from the client with a `MESSAGES_SNAPSHOT` of its
 * thread without it. Every message event carries the turn and the offset after its part (`ag-ui-thread.ts`), and
 * message ids are the turn's, not the response's, so a client that rejoins mid-message goes on with the message it
 * holds.
 */
export class AgUiEventMapper {
  ended = false;
  private readonly assembler = new FullStreamAssembler();
  /**
   * The step this response opened and has not finished. A response that starts mid-step (after an interrupt, or on
   * a reconnect) finishes only steps it started, and finishes its open step before the run does: AG-UI clients
   * refuse a STEP_FINISHED without its STEP_STARTED and a RUN_FINISHED with a step still active.
   */
  private openStep: string | undefined;
  /** The streamed text messages, by the assembler's part (step and part id). */
  private readonly texts = new Map<string, Streamed>();
  /** The tool calls whose input streams, by call id. */
  private readonly calls = new Map<string, Streamed>();
  /** Streamed messages the run voided; dropped from the client while it still holds any. */
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
    for (const full of this.assembler.push(part)) this.part(full, out);
    return out;
  }

  /**
   * A part from before where this response writes: the client was sent it by an earlier response. It tells what the
   * client's streamed messages hold, so this response goes on with them (or drops them, if the run voided them).
   */
  seen(part: WebStreamPart): void {
    for (const full of this.assembler.push(part)) this.part(full, undefined);
  }

  /** What an assembled part writes (`out` undefined: only seen, the messages' state is kept). */
  private part(part: FullStreamPart, out: AGUIEvent[] | undefined): void {
    switch (part.type) {
      case 'text-start': {
        const messageId = `turn${this.context.turn}-step${part.step}-a${part.attempt}-${part.id}`;
        this.texts.set(`${part.step}/${part.id}`, { step: part.step, id: messageId, text: '', opened: false });
        return;
      }
      case 'text-delta': {
        const text = this.texts.get(`${part.step}/${part.id}`);
        if (!text) return;
        text.text += part.text;
        if (!out) return;
        this.open(text, out);
        this.emit(out, { type: EventType.TEXT_MESSAGE_CONTENT, messageId: text.id, delta: part.text });
        return;
      }
      case 'text-end': {
        const text = this.texts.get(`${part.step}/${part.id}`);
        this.texts.delete(`${part.step}/${part.id}`);
        if (!text || !out) return;
        this.open(text, out);
        this.emit(out, { type: EventType.TEXT_MESSAGE_END, messageId: text.id });
        return;
      }
      case 'tool-input-start': {
        // Call ids are the provider's: a retry may reuse one of its void attempt's, which the client then holds anew.
        this.voided.delete(part.id);
        const call: Streamed = { step: part.step, id: part.id, toolName: part.toolName, text: '', opened: false };
        this.calls.set(part.id, call);
        if (out) this.openCall(call, out);
        return;
      }
      case 'tool-input-delta': {
        const call = this.calls.get(part.id);
        if (!call) return;
        if (out) this.openCall(call, out);
        call.text += part.delta;
        if (out) this.emit(out, { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: part.delta });
        return;
      }
      case 'reset-step':
        this.voidStreamed(part.step, out);
        return;
      case 'tool-call':
        this.finalCall(part, out);
        return;
      case 'finish-step':
        // What the step streamed and its final message did not end is void.
        this.voidStreamed(part.step, out);
        if (out && this.openStep === `step-${part.step}`) this.finishStep(out);
        return;
    }
    if (!out) return;
    switch (part.type) {
      case 'start-step':
        this.finishStep(out);
        this.openStep = `step-${part.step}`;
        this.emit(out, { type: EventType.STEP_STARTED, stepName: this.openStep });
        return;
      case 'tool-result':
        this.emit(out, {
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${this.context.runId}-result-${part.toolCallId}`,
          toolCallId: part.toolCallId,
          role: 'tool',
          content: contentOf(part.outcome, part.output),
        });
        return;
      case 'finish':
        this.finish(out, { type: 'success' });
        return;
      case 'abort':
        this.finish(out, { type: 'cancelled' });
        return;
      case 'error':
        this.endStreamed(out);
        this.ended = true;
        this.emit(out, { type: EventType.RUN_ERROR, message: `The run failed: ${part.error}` });
        return;
      case 'live-unavailable':
        // The client is told; the steps' recorded text and the run's end follow from the run's events.
        this.emit(out, { type: EventType.CUSTOM, name: 'live-unavailable', value: { reason: part.reason } });
        return;
      case 'run-event':
        if (TERMINAL_EVENT_TYPES.has(part.event.type)) this.finish(out, { type: 'success' });
        return;
    }
  }

  /**
   * A step's tool call. When its input streamed as the same call (name and arguments), the call ends; otherwise
   * what streamed is dropped and the call is written whole.
   */
  private finalCall(part: Extract<FullStreamPart, { type: 'tool-call' }>, out: AGUIEvent[] | undefined): void {
    const call = this.calls.get(part.toolCallId);
    if (call) {
      this.calls.delete(call.id);
      if (call.toolName === part.toolName && sameJson(call.text, part.input)) {
        if (out) {
          this.openCall(call, out);
          this.emit(out, { type: EventType.TOOL_CALL_END, toolCallId: call.id });
        }
        return;
      }
      if (out && call.opened) this.emit(out, { type: EventType.TOOL_CALL_END, toolCallId: call.id });
      if (out) this.dropMessages(out, new Set([call.id]));
    }
    if (!out) return;
    this.emit(out, { type: EventType.TOOL_CALL_START, toolCallId: part.toolCallId, toolCallName: part.toolName });
    this.emit(out, { type: EventType.TOOL_CALL_ARGS, toolCallId: part.toolCallId, delta: JSON.stringify(part.input) });
    this.emit(out, { type: EventType.TOOL_CALL_END, toolCallId: part.toolCallId });
  }

  /** Ends what step `step` streams (every step: undefined) and drops it from the client. */
  private voidStreamed(step: number | undefined, out: AGUIEvent[] | undefined): void {
    this.end(out, step, true);
    if (out) this.dropVoided(out);
  }

  /** Ends the streamed texts and calls (of `step`, or all) this response opened, and forgets them. */
  private end(out: AGUIEvent[] | undefined, step: number | undefined, voided: boolean): void {
    for (const map of [this.texts, this.calls]) {
      for (const [key, streamed] of map) {
        if (step !== undefined && streamed.step !== step) continue;
        map.delete(key);
        if (voided) this.voided.add(streamed.id);
        if (!out || !streamed.opened) continue;
        const isText = map === this.texts;
        this.emit(
          out,
          isText
            ? { type: EventType.TEXT_MESSAGE_END, messageId: streamed.id }
            : { type: EventType.TOOL_CALL_END, toolCallId: streamed.id },
        );
      }
    }
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
    this.end(out, undefined, false);
  }

  /** Writes a streamed text's TEXT_MESSAGE_START once per response (the client's message goes on when it has it). */
  private open(text: Streamed, out: AGUIEvent[]): void {
    if (text.opened) return;
    text.opened = true;
    this.emit(out, { type: EventType.TEXT_MESSAGE_START, messageId: text.id, role: 'assistant' });
  }

  /**
   * Writes a streamed call's TOOL_CALL_START once per response, with the input the client does not hold yet. A client
   * that holds another version of the call (from an attempt retried while it was away) has it dropped first.
   */
  private openCall(call: Streamed, out: AGUIEvent[]): void {
    if (call.opened) return;
    call.opened = true;
    let held = this.thread.toolCallArguments(call.id);
    if (held !== undefined && held !== call.text) {
      this.dropMessages(out, new Set([call.id]));
      held = undefined;
    }
    this.emit(out, { type: EventType.TOOL_CALL_START, toolCallId: call.id, toolCallName: call.toolName ?? 'unknown' });
    if (held === undefined && call.text !== '') {
      this.emit(out, { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: call.text });
    }
  }

  /** Adds `event` to `out`, marked with the client's position, and applies it to the copy of the client's thread. */
  private emit(out: AGUIEvent[], event: AGUIEvent): void {
    const written = marked(event, { turn: this.context.turn, offset: this.next });
    this.thread.apply(written);
    out.push(written);
  }

  /** The run waits for people: an interrupt for each pending approval and question (from the run's own state). */
  waiting(offset: number, state: RunState): AGUIEvent[] {
    const interrupts = interruptsOf(state, offset);
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
