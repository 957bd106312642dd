import { checkElicitationResponse } from '../protocol/elicitation-answer.js';
import { ELICITATION_LIMITS } from '../protocol/elicitation.js';
import type { JsonObject } from '../protocol/json.js';
import type { McpElicitationAnswer, McpElicitationContent, McpElicitationRequest } from '../protocol/mcp-call.js';
import { toJsonValue } from '../tool/json-safe.js';
import { utf8Bytes } from './bytes.js';
import type { Redactor } from './secrets.js';

// The call's types are the protocol's, so the tool library can name them without importing the MCP client.
export type {
  McpElicitationAnswer,
  McpElicitationContent,
  McpElicitationHandler,
  McpElicitationRequest,
} from '../protocol/mcp-call.js';

/** The bounds on questions and answers, shared with the run (see `src/protocol/elicitation.ts`). */
export { ELICITATION_LIMITS };

/** The `cancel` answer. */
export const CANCEL: McpElicitationAnswer = { action: 'cancel' };

/**
 * Turns the params of a server's `elicitation/create` into a bounded, secret-free {@link McpElicitationRequest},
 * filling a blank message as VoltAgent does (schema description, else the first field's description, else its
 * title). Returns a string saying why when the request cannot be put to a person.
 */
export function normalizeElicitationRequest(
  serverName: string,
  params: { message?: unknown; requestedSchema?: unknown; mode?: unknown },
  redactor?: Redactor,
): McpElicitationRequest | string {
  if (params.mode !== undefined && params.mode !== 'form')
    return `elicitation mode ${JSON.stringify(params.mode)} is not supported`;
  const schema = toJsonValue(params.requestedSchema);
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return 'the requested schema is not an object';
  const schemaBytes = utf8Bytes(JSON.stringify(schema));
  if (schemaBytes > ELICITATION_LIMITS.schemaBytes) {
    return `the requested schema is ${schemaBytes} bytes, over the limit of ${ELICITATION_LIMITS.schemaBytes}`;
  }
  let message = typeof params.message === 'string' ? params.message : '';
  if (!message.trim()) message = fallbackMessage(schema);
  if (message.length > ELICITATION_LIMITS.messageChars) {
    message = `${message.slice(0, ELICITATION_LIMITS.messageChars - 1)}…`;
  }
  const requestedSchema = redactor ? redactor.json(schema) : schema;
  return { serverName, message: redactor ? redactor.text(message) : message, requestedSchema, mode: 'form' };
}

/** Replaces a blank message with `UserInputBridge.processRequest`'s fallback chain. */
export function fallbackMessage(schema: JsonObject): string {
  const own = schema.description;
  if (typeof own === 'string' && own.trim()) return own.trim();
  const properties = schema.properties;
  if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
    const first = Object.values(properties)[0];
    if (first && typeof first === 'object' && !Array.isArray(first)) {
      for (const key of ['description', 'title'] as const) {
        const text = first[key];
        if (typeof text === 'string' && text.trim()) return text.trim();
      }
    }
  }
  return '';
}

/** Outcome of {@link validateElicitationAnswer}. */
export type ElicitationAnswerCheck = { ok: true; answer: McpElicitationAnswer } | { ok: false; problem: string };

/**
 * Checks an answer before it is sent to the server, with the run's own check (`checkElicitationResponse`: one
 * definition of a valid answer on both sides). `decline` and `cancel` are sent without content; an `accept` gets
 * the schema's defaults for fields it leaves out. The MCP library answers `cancel` instead of a failing answer.
 */
export function validateElicitationAnswer(requestedSchema: JsonObject, answer: unknown): ElicitationAnswerCheck {
  if (!answer || typeof answer !== 'object') return { ok: false, problem: 'the answer is not an object' };
  const { action, content } = answer as { action?: unknown; content?: unknown };
  if (action === 'decline' || action === 'cancel') return { ok: true, answer: { action } };
  const check = checkElicitationResponse(requestedSchema, { action, content: toJsonValue(content ?? {}) });
  if (!check.ok) return check;
  return { ok: true, answer: { action: 'accept', content: (check.content ?? {}) as McpElicitationContent } };
}
