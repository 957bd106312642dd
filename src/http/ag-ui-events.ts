// Maps a run's stream to AG-UI 1.0 events (`@ag-ui/core`): text and tool-call events per step, and a
// `RUN_FINISHED` whose outcome is an interrupt for each pending approval and each MCP question when the run waits
// for a person. An interrupt's id carries what answering it needs (the request's id and token, where to read on),
// so a resume names exactly the request the page was shown.
import { EventType, type AGUIEvent, type Interrupt } from '@ag-ui/core';
import { TERMINAL_EVENT_TYPES, type JsonValue, type RunEvent, type RunState } from '../protocol/index.js';
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

/** Turns the run's stream parts into AG-UI events for the AG-UI run `runId` of thread `threadId`. */
export class AgUiEventMapper {
  ended = false;
  /**
   * The step this response opened and has not finished. A response that starts mid-step (after an interrupt, or on
   * a reconnect) finishes only steps it started, and finishes its open step before the run does: AG-UI clients
   * refuse a STEP_FINISHED without its STEP_STARTED and a RUN_FINISHED with a step still active.
   */
  private openStep: string | undefined;

  constructor(
    private readonly threadId: string,
    private readonly runId: string,
  ) {}

  start(): AGUIEvent[] {
    return [{ type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.runId }];
  }

  map(part: WebStreamPart): AGUIEvent[] {
    // Text comes from each step's final text; live model deltas are not mapped to AG-UI yet.
    return part.type === 'event' ? this.event(part.event) : [];
  }

  private event(event: RunEvent): AGUIEvent[] {
    switch (event.type) {
      case 'step-started': {
        const out = this.finishStep();
        this.openStep = `step-${event.step}`;
        return [...out, { type: EventType.STEP_STARTED, stepName: this.openStep }];
      }
      case 'step-finished':
        return this.openStep === `step-${event.step}` ? this.finishStep() : [];
      case 'text': {
        if (event.text === '') return [];
        const messageId = `${this.runId}-text-${event.step}`;
        return [
          { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
          { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: event.text },
          { type: EventType.TEXT_MESSAGE_END, messageId },
        ];
      }
      case 'tool-call':
        return [
          { type: EventType.TOOL_CALL_START, toolCallId: event.toolCallId, toolCallName: event.toolName },
          { type: EventType.TOOL_CALL_ARGS, toolCallId: event.toolCallId, delta: JSON.stringify(event.args) },
          { type: EventType.TOOL_CALL_END, toolCallId: event.toolCallId },
        ];
      case 'tool-result':
        return [
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: `${this.runId}-result-${event.toolCallId}`,
            toolCallId: event.toolCallId,
            role: 'tool',
            content: contentOf(event.outcome, event.output),
          },
        ];
      case 'finished':
        return this.finish({ type: 'success' });
      case 'cancelled':
        return this.finish({ type: 'cancelled' });
      case 'failed':
        this.ended = true;
        return [{ type: EventType.RUN_ERROR, message: `The run failed: ${event.message}` }];
      default:
        return TERMINAL_EVENT_TYPES.has(event.type) ? this.finish({ type: 'success' }) : [];
    }
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
    if (interrupts.length === 0) {
      // Only client-side tool results are awaited: a completed AG-UI run that names them.
      return this.finish({ type: 'success', pendingToolCallIds: state.pendingToolResults.map((t) => t.toolCallId) });
    }
    return this.finish({ type: 'interrupt', interrupts });
  }

  closed(): AGUIEvent[] {
    return this.finish({ type: 'success' });
  }

  private finishStep(): AGUIEvent[] {
    const step = this.openStep;
    this.openStep = undefined;
    return step === undefined ? [] : [{ type: EventType.STEP_FINISHED, stepName: step }];
  }

  private finish(outcome: Extract<AGUIEvent, { type: EventType.RUN_FINISHED }>['outcome']): AGUIEvent[] {
    this.ended = true;
    return [
      ...this.finishStep(),
      { type: EventType.RUN_FINISHED, threadId: this.threadId, runId: this.runId, ...(outcome ? { outcome } : {}) },
    ];
  }
}

function contentOf(outcome: string, output: JsonValue): string {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  return outcome === 'ok' || outcome === 'client-result' ? text : `${outcome}: ${text}`;
}
