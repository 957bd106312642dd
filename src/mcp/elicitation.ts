import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonObject, JsonValue } from '../protocol/json.js';
import { toJsonValue } from '../tool/json-safe.js';
import { utf8Bytes } from './bytes.js';
import type { Redactor } from './secrets.js';

/** A server's question to a person (`elicitation/create`, form mode), as plain, bounded, secret-free JSON. */
export interface McpElicitationRequest {
  /** The server that asks. */
  serverName: string;
  /** What to ask. A blank message is replaced by the schema's description or its first field's. */
  message: string;
  /** A flat JSON Schema object of the answer's fields (strings, numbers, booleans, enums). */
  requestedSchema: JsonObject;
  mode: 'form';
}

/** Content of an accepted elicitation: field name to a primitive value or a list of enum strings. */
export type McpElicitationContent = Record<string, string | number | boolean | string[]>;

/** A person's answer: `accept` with content, `decline` (said no), or `cancel` (dismissed, or nobody answered). */
export type McpElicitationAnswer =
  | { action: 'accept'; content: McpElicitationContent }
  | { action: 'decline'; content?: undefined }
  | { action: 'cancel'; content?: undefined };

/** Answers elicitations. `signal` fires when the call that asked is cancelled or the server withdraws the request. */
export type McpElicitationHandler = (
  request: McpElicitationRequest,
  context: { signal: AbortSignal },
) => McpElicitationAnswer | Promise<McpElicitationAnswer>;

/** Bounds on what a server may ask (a request over them is answered `cancel` without asking anyone). */
export const ELICITATION_LIMITS = {
  /** Longer messages are cut. */
  maxMessageChars: 4000,
  /** Larger schemas are refused. */
  maxSchemaBytes: 32 * 1024,
  /** Larger accepted content is refused (it would be recorded in history). */
  maxContentBytes: 64 * 1024,
} as const;

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
  if (schemaBytes > ELICITATION_LIMITS.maxSchemaBytes) {
    return `the requested schema is ${schemaBytes} bytes, over the limit of ${ELICITATION_LIMITS.maxSchemaBytes}`;
  }
  let message = typeof params.message === 'string' ? params.message : '';
  if (!message.trim()) message = fallbackMessage(schema);
  if (message.length > ELICITATION_LIMITS.maxMessageChars) {
    message = `${message.slice(0, ELICITATION_LIMITS.maxMessageChars - 1)}…`;
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
 * Checks an answer before it is sent to the server: the action must be `accept`, `decline` or `cancel`; an
 * `accept` must carry content (an object of primitives or string lists, at most `maxContentBytes`) that matches
 * the request's `requestedSchema` (JSON Schema, checked with the MCP SDK's Ajv validator, formats included),
 * after omitted fields are filled with their schema defaults (SEP-1034).
 * `decline` and `cancel` never carry content. The MCP library answers `cancel` instead of a failing answer.
 */
export function validateElicitationAnswer(requestedSchema: JsonObject, answer: unknown): ElicitationAnswerCheck {
  if (!answer || typeof answer !== 'object') return { ok: false, problem: 'the answer is not an object' };
  const { action, content } = answer as { action?: unknown; content?: unknown };
  if (action === 'decline' || action === 'cancel') return { ok: true, answer: { action } };
  if (action !== 'accept') {
    return { ok: false, problem: `action must be 'accept', 'decline' or 'cancel', not ${JSON.stringify(action)}` };
  }
  const data = toJsonValue(content ?? {});
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, problem: 'accepted content must be an object of field values' };
  }
  applyDefaults(requestedSchema, data);
  const bytes = utf8Bytes(JSON.stringify(data));
  if (bytes > ELICITATION_LIMITS.maxContentBytes) {
    return { ok: false, problem: `content is ${bytes} bytes, over the limit of ${ELICITATION_LIMITS.maxContentBytes}` };
  }
  for (const [field, value] of Object.entries(data)) {
    if (!isPrimitiveField(value))
      return { ok: false, problem: `field '${field}' must be a string, number, boolean or list of strings` };
  }
  let result: { valid: boolean; errorMessage?: string };
  try {
    // A fresh validator each time: Ajv caches every compiled schema for the life of its instance, and every
    // request brings a new schema object, so a shared instance would grow without bound in a long-lived worker.
    result = new AjvJsonSchemaValidator().getValidator(requestedSchema as never)(data);
  } catch (error) {
    return { ok: false, problem: `the requested schema cannot be checked: ${(error as Error).message}` };
  }
  if (!result.valid)
    return { ok: false, problem: result.errorMessage ?? 'content does not match the requested schema' };
  return { ok: true, answer: { action: 'accept', content: data as McpElicitationContent } };
}

/**
 * Fills fields the answer leaves out with the schema's `default` values (SEP-1034: a form shows the defaults, so
 * accepting without touching a field means accepting its default).
 */
function applyDefaults(requestedSchema: JsonObject, content: JsonObject): void {
  const properties = requestedSchema.properties;
  if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return;
  for (const [field, property] of Object.entries(properties)) {
    if (Object.hasOwn(content, field) || !property || typeof property !== 'object' || Array.isArray(property)) continue;
    if (property.default !== undefined) content[field] = property.default;
  }
}

function isPrimitiveField(value: JsonValue): boolean {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return true;
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
