// AG-UI interrupts of a run that waits for people: one per pending approval and MCP question, each with an id that
// carries what answering it needs (the request's id and token, where to read on), so a resume names exactly the
// request the page was shown.
import type { Interrupt } from '@ag-ui/core';
import type { RunState } from '../protocol/index.js';

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

/** The interrupts of a run that waits for people (from its own state); `offset`: where a resume reads on. */
export function interruptsOf(state: RunState, offset: number): Interrupt[] {
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
  return interrupts;
}
