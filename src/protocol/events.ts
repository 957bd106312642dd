import type { JsonValue } from './json.js';
import type { Usage } from './activity-io.js';

/** Fields every run event has: a gap-free sequence number from 1 and the workflow time it happened. */
interface EventBase {
  seq: number;
  at: string;
}

/** The body of a run event, before the log numbers it. */
/** Tools offered under one name: `name`, and `<server>/<tool>` of each (at most five). */
export interface McpToolCollision {
  name: string;
  tools: string[];
}

export type RunEventBody =
  | { type: 'run-started'; agentName: string }
  | { type: 'retriever-error'; message: string }
  | { type: 'step-started'; step: number }
  | { type: 'text'; step: number; text: string }
  | { type: 'tool-call'; step: number; toolCallId: string; toolName: string; args: JsonValue }
  | { type: 'tool-started'; step: number; toolCallId: string; toolName: string }
  /** `progressSeq` is the tool's own yield count (its checkpoint number), not the event's `seq`. */
  | { type: 'tool-progress'; toolCallId: string; progressSeq: number; value: JsonValue }
  | {
      type: 'tool-result';
      step: number;
      toolCallId: string;
      toolName: string;
      outcome: 'ok' | 'error' | 'invalid' | 'denied' | 'client-result';
      output: JsonValue;
    }
  | {
      type: 'approval-requested';
      step: number;
      toolCallId: string;
      toolName: string;
      args: JsonValue;
      /** Echo it in the decision (absent for runs started before v0.2.0). */
      token?: string;
    }
  | {
      type: 'approval-decided';
      toolCallId: string;
      toolName: string;
      approved: boolean;
      reason?: string;
      approver?: string;
      approverVerified?: boolean;
      timedOut?: boolean;
    }
  /** A decision the agent's `authorizeDecision` hook refused: the request stays pending. */
  | { type: 'approval-refused'; toolCallId: string; toolName: string; approver?: string; reason: string }
  | { type: 'tool-result-requested'; step: number; toolCallId: string; toolName: string; args: JsonValue }
  | { type: 'step-finished'; step: number; finishReason: string; usage: Usage }
  /**
   * A server's tools, offered from the next model call on. `late`: the listing arrived after the run's first model
   * call had gone ahead without it (over the listing budget, docs/mcp.md).
   */
  | { type: 'mcp-tools-listed'; server: string; version: string; tools: number; skipped: number; late?: true }
  /**
   * An MCP server could not be listed: the run goes on without its tools. `late`: it failed after the listing
   * budget (reason `cancelled`: the run finished or continued as new while it was still listing).
   */
  | { type: 'mcp-server-failed'; server: string; reason: string; message: string; late?: true }
  /**
   * MCP tools of different servers would be offered under one name (`docs`/`admin_delete_all` and
   * `docs_admin`/`delete_all`): all of them are left out. At most 20 collisions per event; `more` counts the rest.
   */
  | { type: 'mcp-tools-collided'; collisions: McpToolCollision[]; more: number }
  | {
      type: 'elicitation-requested';
      id: string;
      toolCallId: string;
      toolName: string;
      serverName: string;
      message: string;
      requestedSchema: JsonValue;
      /** What an answer must echo (since v0.4.0; see `ElicitationResponse.token`). */
      token?: string;
    }
  | {
      type: 'elicitation-answered';
      id: string;
      action: 'accept' | 'decline' | 'cancel';
      responder?: string;
      timedOut?: boolean;
      /** Since v0.4.0: the call that asked ended first (the server withdrew it, or the call failed). */
      withdrawn?: boolean;
    }
  | { type: 'continued-as-new'; generation: number }
  | { type: 'finished'; text: string; finishReason: string; stopReason: string }
  | { type: 'cancelled' }
  | { type: 'failed'; message: string; errorType?: string };

/** One entry of a run's event log. */
export type RunEvent = EventBase & RunEventBody;

/** Event types that end a run. */
export const TERMINAL_EVENT_TYPES: ReadonlySet<RunEvent['type']> = new Set(['finished', 'cancelled', 'failed']);

/** Events kept in a tool-result event are previews: outputs larger than this are truncated to a string. */
export const EVENT_OUTPUT_PREVIEW_CHARS = 2_000;

/** A bounded preview of a text for the event log (the full text lives in the transcript). */
export function previewText(text: string): string {
  return text.length <= EVENT_OUTPUT_PREVIEW_CHARS
    ? text
    : `${text.slice(0, EVENT_OUTPUT_PREVIEW_CHARS)}… (${text.length} chars)`;
}

/** A bounded preview of an output for the event log (the full output lives in the transcript). */
export function previewOutput(output: JsonValue): JsonValue {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  if (text === undefined || text.length <= EVENT_OUTPUT_PREVIEW_CHARS) return output;
  return previewText(text);
}
