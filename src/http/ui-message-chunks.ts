// Maps a run's stream (its events, tool progress and, since live model deltas, the model's output pieces) to the
// AI SDK's UI message stream parts (`UIMessageChunk` of `ai` 7), which `useChat` renders. Pure and synchronous:
// one mapper per response, fed the parts in offset order.
import type { UIMessageChunk } from 'ai';
import type { RunStreamPart } from '../client/run-stream.js';
import type { JsonValue, RunEvent, StreamedDeltas } from '../protocol/index.js';

/**
 * A part of the run's stream as the mapper reads it: what `run.stream()` yields, the `deltas` topic's items
 * (model output pieces per step attempt, `reset-step` when a retried attempt starts over) among them.
 */
export type WebStreamPart = RunStreamPart;

/** What the UI message stream carries about an MCP elicitation, as the `data-elicitation` part's `data`. */
export interface ElicitationData {
  /** The question's id: answer it with `POST …/chat/:chatId/elicitations/:id`. */
  id: string;
  toolCallId: string;
  toolName: string;
  serverName: string;
  message: string;
  requestedSchema: JsonValue;
  /** Echo it in the answer: it binds the answer to the question this page showed. */
  token?: string;
  status: 'pending' | 'accept' | 'decline' | 'cancel';
}

/** The approval id a `tool-approval-request` part carries for a tool call of the run. */
export function approvalIdOf(toolCallId: string): string {
  return `approval-${toolCallId}`;
}

/** The AI SDK finish reasons (`FinishReason` of `ai`); anything else a provider reports is `other`. */
const FINISH_REASONS = new Set(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other']);

type FinishReason = Extract<UIMessageChunk, { type: 'finish' }>['finishReason'];

/** A text or reasoning part the stream opened and has not ended yet. */
interface OpenPart {
  kind: 'text' | 'reasoning';
  uiId: string;
  /** What it showed so far. */
  text: string;
}

/**
 * Turns the run's stream parts into UI message stream chunks. Text comes from model deltas as they are written
 * when the run publishes them, else from each step's `text` event; a step's final text supersedes its deltas
 * (what they missed is added, or the step is reset and shown again when they differ). Tool calls, approvals,
 * progress, results and elicitations follow the events. `ended` is set after the run's terminal event.
 */
export class UiMessageChunkMapper {
  /** True after the run's terminal event was mapped. */
  ended = false;
  private step: number | undefined;
  /** The attempt of the current step whose deltas are shown. */
  private attempt = 0;
  /** Whether anything of the current step was written (a `reset-step` has something to remove). */
  private stepWritten = false;
  private readonly open = new Map<string, OpenPart>();
  /** Tool calls whose `tool-input-start` was written (from deltas). */
  private readonly inputStarted = new Set<string>();
  /** Tool calls whose input is known (`tool-input-available` written). */
  private readonly inputAvailable = new Set<string>();
  /** Tool calls already ended on the page as denied. */
  private readonly denied = new Set<string>();
  /** The last progress seq shown per tool call (the `progress` topic and `tool-progress` events both carry it). */
  private readonly progressShown = new Map<string, number>();
  private readonly elicitations = new Map<string, ElicitationData>();

  /** The chunks for one part of the run's stream. */
  map(part: WebStreamPart): UIMessageChunk[] {
    switch (part.type) {
      case 'event':
        return this.event(part.event);
      case 'progress':
        return this.progress(part.progress.toolCallId, part.progress.seq, part.progress.value);
      case 'deltas':
        return this.deltas(part.deltas);
      case 'truncated':
        // Items the run no longer holds: the events that follow still end every part they belong to.
        return [];
    }
  }

  private event(event: RunEvent): UIMessageChunk[] {
    switch (event.type) {
      case 'step-started':
        return this.startStep(event.step);
      case 'text':
        return [...this.ensureStep(event.step), ...this.finalText(event.text)];
      case 'tool-call': {
        const out: UIMessageChunk[] = [...this.ensureStep(event.step)];
        this.inputAvailable.add(event.toolCallId);
        out.push({
          type: 'tool-input-available',
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          input: event.args,
        });
        this.stepWritten = true;
        return out;
      }
      case 'approval-requested':
        return [
          ...this.ensureInput(event.toolCallId, event.toolName, event.args),
          {
            type: 'tool-approval-request',
            approvalId: approvalIdOf(event.toolCallId),
            toolCallId: event.toolCallId,
            // The run's token: an approval coming back must carry it (checked on the server, not trusted).
            ...(event.token !== undefined ? { signature: event.token } : {}),
          },
        ];
      case 'approval-decided': {
        const out: UIMessageChunk[] = [
          {
            type: 'tool-approval-response',
            approvalId: approvalIdOf(event.toolCallId),
            approved: event.approved,
            ...(event.reason !== undefined ? { reason: event.reason } : {}),
          },
        ];
        if (!event.approved) {
          this.denied.add(event.toolCallId);
          out.push({ type: 'tool-output-denied', toolCallId: event.toolCallId });
        }
        return out;
      }
      case 'tool-progress':
        return this.progress(event.toolCallId, event.progressSeq, event.value);
      case 'tool-result':
        return this.toolResult(event);
      case 'elicitation-requested': {
        const data: ElicitationData = {
          id: event.id,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          serverName: event.serverName,
          message: event.message,
          requestedSchema: event.requestedSchema,
          ...(event.token !== undefined ? { token: event.token } : {}),
          status: 'pending',
        };
        this.elicitations.set(event.id, data);
        return [{ type: 'data-elicitation', id: event.id, data }];
      }
      case 'elicitation-answered': {
        const asked = this.elicitations.get(event.id);
        if (!asked) return [];
        // Same data id: the page's part is replaced, so the form becomes the answer. The token is spent.
        const { token: _spent, ...rest } = asked;
        return [{ type: 'data-elicitation', id: event.id, data: { ...rest, status: event.action } }];
      }
      case 'step-finished':
        return this.finishStep();
      case 'finished':
        this.ended = true;
        return [...this.finishStep(), { type: 'finish', finishReason: finishReasonOf(event.finishReason) }];
      case 'cancelled':
        this.ended = true;
        return [...this.closeOpen(), { type: 'abort', reason: 'The run was cancelled.' }];
      case 'failed':
        this.ended = true;
        return [...this.closeOpen(), { type: 'error', errorText: `The run failed: ${event.message}` }];
      default:
        return [];
    }
  }

  private startStep(step: number): UIMessageChunk[] {
    if (this.step === step) return [];
    const out = this.step !== undefined ? this.finishStep() : [];
    this.step = step;
    this.attempt = 0;
    this.stepWritten = false;
    this.inputStarted.clear();
    out.push({ type: 'start-step' });
    return out;
  }

  /** Starts `step` if the stream joined after its `step-started` (a truncated log). */
  private ensureStep(step: number): UIMessageChunk[] {
    return this.step === step ? [] : this.startStep(step);
  }

  private finishStep(): UIMessageChunk[] {
    if (this.step === undefined) return [];
    const out = this.closeOpen();
    out.push({ type: 'finish-step' });
    this.step = undefined;
    return out;
  }

  private closeOpen(): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    for (const part of this.open.values()) {
      out.push(part.kind === 'text' ? { type: 'text-end', id: part.uiId } : { type: 'reasoning-end', id: part.uiId });
    }
    this.open.clear();
    return out;
  }

  /**
   * The step's final text. When deltas showed a beginning of it, only the rest is added to the last text part;
   * when they showed something else (a provider that rewrote its output), the step is reset and shown again.
   */
  private finalText(text: string): UIMessageChunk[] {
    const step = this.step ?? 0;
    const texts = [...this.open.values()].filter((part) => part.kind === 'text');
    const shown = texts.map((part) => part.text).join('');
    const out: UIMessageChunk[] = [];
    if (texts.length > 0 && text.startsWith(shown)) {
      const last = texts[texts.length - 1]!;
      if (text.length > shown.length) out.push({ type: 'text-delta', id: last.uiId, delta: text.slice(shown.length) });
      out.push(...this.closeOpen());
      return out;
    }
    if (texts.length > 0) out.push(...this.resetStep());
    if (text.length === 0) return out;
    const uiId = `text-${step}`;
    out.push(
      { type: 'text-start', id: uiId },
      { type: 'text-delta', id: uiId, delta: text },
      { type: 'text-end', id: uiId },
    );
    this.stepWritten = true;
    return out;
  }

  /** Removes what the current step showed (the page drops the step's parts). */
  private resetStep(): UIMessageChunk[] {
    this.open.clear();
    this.inputStarted.clear();
    if (!this.stepWritten) return [];
    this.stepWritten = false;
    return [{ type: 'reset-step' }];
  }

  private deltas(deltas: StreamedDeltas): UIMessageChunk[] {
    const out: UIMessageChunk[] = [...this.ensureStep(deltas.step)];
    if (deltas.attempt < this.attempt) return out;
    if (deltas.attempt > this.attempt || deltas.type === 'reset-step') {
      // A new attempt of the step: what earlier attempts wrote is void.
      out.push(...this.resetStep());
      this.attempt = deltas.attempt;
    }
    if (deltas.type === 'reset-step') return out;
    for (const piece of deltas.parts) {
      if (piece.kind === 'tool-input') {
        if (this.inputAvailable.has(piece.id)) continue;
        if (!this.inputStarted.has(piece.id)) {
          this.inputStarted.add(piece.id);
          out.push({ type: 'tool-input-start', toolCallId: piece.id, toolName: piece.toolName ?? 'unknown' });
        }
        out.push({ type: 'tool-input-delta', toolCallId: piece.id, inputTextDelta: piece.text });
      } else {
        const key = `${piece.kind}:${piece.id}`;
        let part = this.open.get(key);
        if (!part) {
          part = { kind: piece.kind, uiId: `${piece.kind}-${deltas.step}-${deltas.attempt}-${piece.id}`, text: '' };
          this.open.set(key, part);
          out.push(
            piece.kind === 'text' ? { type: 'text-start', id: part.uiId } : { type: 'reasoning-start', id: part.uiId },
          );
        }
        part.text += piece.text;
        out.push(
          piece.kind === 'text'
            ? { type: 'text-delta', id: part.uiId, delta: piece.text }
            : { type: 'reasoning-delta', id: part.uiId, delta: piece.text },
        );
      }
      this.stepWritten = true;
    }
    return out;
  }

  /** A tool call's input, written once (an approval request can come first on a stream that joined late). */
  private ensureInput(toolCallId: string, toolName: string, input: JsonValue): UIMessageChunk[] {
    if (this.inputAvailable.has(toolCallId)) return [];
    this.inputAvailable.add(toolCallId);
    return [{ type: 'tool-input-available', toolCallId, toolName, input }];
  }

  private progress(toolCallId: string, seq: number, value: JsonValue): UIMessageChunk[] {
    if ((this.progressShown.get(toolCallId) ?? 0) >= seq) return [];
    this.progressShown.set(toolCallId, seq);
    return [{ type: 'tool-output-available', toolCallId, output: value, preliminary: true }];
  }

  private toolResult(event: Extract<RunEvent, { type: 'tool-result' }>): UIMessageChunk[] {
    // No input part here: a response that goes on after an approval continues the page's parts, which hold it.
    const out: UIMessageChunk[] = [];
    switch (event.outcome) {
      case 'ok':
      case 'client-result':
        out.push({ type: 'tool-output-available', toolCallId: event.toolCallId, output: event.output });
        break;
      case 'denied':
        if (!this.denied.has(event.toolCallId)) out.push({ type: 'tool-output-denied', toolCallId: event.toolCallId });
        break;
      case 'error':
      case 'invalid':
        out.push({ type: 'tool-output-error', toolCallId: event.toolCallId, errorText: errorTextOf(event.output) });
        break;
    }
    return out;
  }
}

function finishReasonOf(reason: string): FinishReason {
  return (FINISH_REASONS.has(reason) ? reason : 'other') as FinishReason;
}

function errorTextOf(output: JsonValue): string {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object' && !Array.isArray(output) && typeof output.message === 'string') {
    return output.message;
  }
  return JSON.stringify(output);
}
