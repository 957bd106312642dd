// Maps a run's stream to the AI SDK's UI message stream (`UIMessageChunk` of `ai` 7), which `useChat` renders: the
// run's assembled parts (`FullStreamAssembler`, the one place that knows steps, attempts and resets) go through the
// AI SDK's own `toUIMessageChunk`, with the run's ids and outcomes. One mapper per response, fed in offset order.
import { toUIMessageChunk, type TextStreamPart, type ToolSet, type UIMessageChunk } from 'ai';
import { FullStreamAssembler, type FullStreamPart } from '../client/full-stream.js';
import type { RunStreamPart } from '../client/run-stream.js';
import type { JsonValue, RunEvent } from '../protocol/index.js';

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

/** A part in the AI SDK's own stream part shape, as `toUIMessageChunk` reads it. */
type SdkPart = TextStreamPart<ToolSet>;

/**
 * Turns the run's stream parts into UI message stream chunks. Text, reasoning and tool input stream from the model's
 * deltas when the run publishes them, else come from each step's recorded message; a retried attempt, or a recorded
 * message that differs from what streamed, is a `reset-step` chunk (the page drops the step's parts). Tool calls,
 * approvals, progress, results and elicitations follow the events. `ended` is set after the run's terminal event.
 */
export class UiMessageChunkMapper {
  /** True after the run's terminal event was mapped. */
  ended = false;
  private readonly assembler = new FullStreamAssembler();
  /** The step the page has open (a `start-step` written, its `finish-step` not yet). */
  private step: number | undefined;
  /** Tool calls whose input is known (`tool-input-available` written). */
  private readonly inputAvailable = new Set<string>();
  /** Tool calls already ended on the page as denied. */
  private readonly denied = new Set<string>();
  /** The last progress seq shown per tool call (the `progress` topic and `tool-progress` events both carry it). */
  private readonly progressShown = new Map<string, number>();
  private readonly elicitations = new Map<string, ElicitationData>();

  /** The chunks for one part of the run's stream. */
  map(part: WebStreamPart): UIMessageChunk[] {
    if (part.type === 'progress')
      return this.progress(part.progress.toolCallId, part.progress.seq, part.progress.value);
    return this.assembler.push(part).flatMap((full) => this.chunks(full));
  }

  private chunks(part: FullStreamPart): UIMessageChunk[] {
    switch (part.type) {
      case 'start-step':
        return this.startStep(part.step);
      case 'text-start':
      case 'text-delta':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-end': {
        // The provider's part ids repeat across steps and attempts; the page's must not.
        const kind = part.type.startsWith('text') ? 'text' : 'reasoning';
        const id = `${kind}-${part.step}-${part.attempt}-${part.id}`;
        return [...this.ensureStep(part.step), ...sdk({ ...part, id } as SdkPart)];
      }
      case 'tool-input-start':
      case 'tool-input-delta':
        return [...this.ensureStep(part.step), ...sdk(part as SdkPart)];
      case 'reset-step':
        return [...this.ensureStep(part.step), { type: 'reset-step' }];
      case 'tool-call':
        this.inputAvailable.add(part.toolCallId);
        return [...this.ensureStep(part.step), ...sdk({ ...part, dynamic: undefined } as unknown as SdkPart)];
      case 'tool-approval-request':
        return [
          ...this.ensureInput(part.toolCall.toolCallId, part.toolCall.toolName, part.toolCall.input),
          // The run's token: an approval coming back must carry it (checked on the server, not trusted).
          ...sdk({
            type: 'tool-approval-request',
            approvalId: approvalIdOf(part.approvalId),
            toolCall: part.toolCall,
            ...(part.token !== undefined ? { signature: part.token } : {}),
          } as unknown as SdkPart),
        ];
      case 'tool-result':
        return this.toolResult(part);
      case 'elicitation-request': {
        const { offset: _offset, type: _type, ...asked } = part;
        const data: ElicitationData = { ...asked, status: 'pending' };
        this.elicitations.set(part.id, data);
        return [{ type: 'data-elicitation', id: part.id, data }];
      }
      case 'live-unavailable':
        // The page says so; the steps' recorded text and the run's end follow from the run's events.
        return [
          { type: 'data-live-unavailable', id: `live-unavailable-${part.offset}`, data: { reason: part.reason } },
        ];
      case 'run-event':
        return this.event(part.event);
      case 'finish-step':
        return this.finishStep();
      case 'finish': {
        this.ended = true;
        const finishReason = FINISH_REASONS.has(part.finishReason) ? part.finishReason : 'other';
        return [...this.finishStep(), ...sdk({ type: 'finish', finishReason } as SdkPart)];
      }
      case 'abort':
        this.ended = true;
        return sdk({ type: 'abort', reason: 'The run was cancelled.' });
      case 'error':
        this.ended = true;
        return sdk({ type: 'error', error: `The run failed: ${part.error}` });
      default:
        // The run's start (the response writes its own), a truncation (the events that follow still end every part
        // they belong to), a client tool's request (its input is on the page already).
        return [];
    }
  }

  /** Run events with no part of their own: decisions, progress, answered questions. */
  private event(event: RunEvent): UIMessageChunk[] {
    switch (event.type) {
      case 'approval-decided': {
        const approvalId = approvalIdOf(event.toolCallId);
        const { approved, reason } = event;
        const out = sdk({ type: 'tool-approval-response', approvalId, approved, reason } as SdkPart);
        if (!approved) {
          this.denied.add(event.toolCallId);
          out.push({ type: 'tool-output-denied', toolCallId: event.toolCallId });
        }
        return out;
      }
      case 'tool-progress':
        return this.progress(event.toolCallId, event.progressSeq, event.value);
      case 'elicitation-answered': {
        const asked = this.elicitations.get(event.id);
        if (!asked) return [];
        // Same data id: the page's part is replaced, so the form becomes the answer. The token is spent.
        const { token: _spent, ...rest } = asked;
        return [{ type: 'data-elicitation', id: event.id, data: { ...rest, status: event.action } }];
      }
      default:
        return [];
    }
  }

  private startStep(step: number): UIMessageChunk[] {
    if (this.step === step) return [];
    const out = this.finishStep();
    this.step = step;
    out.push({ type: 'start-step' });
    return out;
  }

  /** Starts `step` if the stream joined after its `step-started` (a resumed response, a truncated log). */
  private ensureStep(step: number): UIMessageChunk[] {
    return this.step === step ? [] : this.startStep(step);
  }

  private finishStep(): UIMessageChunk[] {
    if (this.step === undefined) return [];
    this.step = undefined;
    return [{ type: 'finish-step' }];
  }

  /** A tool call's input, written once (an approval request can come first on a stream that joined late). */
  private ensureInput(toolCallId: string, toolName: string, input: JsonValue): UIMessageChunk[] {
    if (this.inputAvailable.has(toolCallId)) return [];
    this.inputAvailable.add(toolCallId);
    return [{ type: 'tool-input-available', toolCallId, toolName, input }];
  }

  private progress(toolCallId: string, seq: number, output: JsonValue): UIMessageChunk[] {
    if ((this.progressShown.get(toolCallId) ?? 0) >= seq) return [];
    this.progressShown.set(toolCallId, seq);
    return sdk({ type: 'tool-result', toolCallId, output, preliminary: true } as unknown as SdkPart);
  }

  private toolResult(part: Extract<FullStreamPart, { type: 'tool-result' }>): UIMessageChunk[] {
    // No input part here: a response that goes on after an approval continues the page's parts, which hold it.
    const { toolCallId, output } = part;
    switch (part.outcome) {
      case 'ok':
      case 'client-result':
        return sdk({ type: 'tool-result', toolCallId, output } as unknown as SdkPart);
      case 'denied':
        return this.denied.has(toolCallId) ? [] : [{ type: 'tool-output-denied', toolCallId }];
      default:
        return sdk({ type: 'tool-error', toolCallId, error: output } as unknown as SdkPart);
    }
  }
}

/** The UI message chunk of an AI SDK stream part, by the AI SDK's own mapping (none for parts it does not show). */
function sdk(part: SdkPart): UIMessageChunk[] {
  const chunk = toUIMessageChunk(part, { onError: errorTextOf });
  return chunk ? [chunk] : [];
}

function errorTextOf(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object' && !Array.isArray(output) && 'message' in output) {
    if (typeof output.message === 'string') return output.message;
  }
  return JSON.stringify(output);
}
