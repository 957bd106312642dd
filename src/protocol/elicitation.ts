import { jsonBytes } from './bytes.js';
import type { JsonObject, JsonValue } from './json.js';

/** An MCP server's question to a person during a tool call, as the run records it. */
export interface ElicitationRequest {
  /** Stable per question of a tool call: a re-issued call that asks the same question gets the same id. */
  id: string;
  toolCallId: string;
  toolName: string;
  serverName: string;
  /** What to ask (bounded, secrets removed by the MCP layer). */
  message: string;
  /** A flat JSON Schema object of the answer's fields: strings, numbers, booleans, enums, lists of enum strings. */
  requestedSchema: JsonObject;
}

/** A question waiting for an answer, as `run.state()` lists it. */
export interface PendingElicitation extends ElicitationRequest {
  requestedAt: string;
  /** When it is answered `cancel` for lack of an answer (ISO), if the agent has an elicitation timeout. */
  expiresAt?: string;
}

/** Content of an accepted answer: field name to a primitive value or a list of strings. */
export type ElicitationContent = Record<string, string | number | boolean | string[]>;

/** An answer as a client sends it (`run.respondToElicitation`). */
export interface ElicitationResponse {
  id: string;
  action: 'accept' | 'decline' | 'cancel';
  /** Required with `accept`: it must match the request's schema. Never with `decline` or `cancel`. */
  content?: ElicitationContent;
  /** Who answered, as claimed. */
  responder?: string;
}

/** An answer as the run recorded it: what the server is given, now or when the call is re-issued. */
export interface ElicitationRecord {
  id: string;
  action: 'accept' | 'decline' | 'cancel';
  content?: ElicitationContent;
  responder?: string;
  /** Set when nobody answered in time: the server is told `cancel`. */
  timedOut?: boolean;
  requestedAt: string;
  answeredAt: string;
}

/** What a tool activity learns when it asks the run about one of its questions. */
export type ElicitationStatus =
  | { status: 'unknown' }
  | { status: 'pending' }
  | { status: 'answered'; record: ElicitationRecord };

/** Bounds on answers (they are recorded in history). */
export const ELICITATION_ANSWER_LIMITS = {
  contentBytes: 64 * 1024,
  responderChars: 200,
} as const;

/**
 * Checks an answer against the request's schema, without any library (it runs in the workflow's update validator):
 * the action, then for `accept` an object of fields whose values match their properties — `string` (minLength,
 * maxLength, format email/uri/date/date-time, and choices: `enum` or titled `oneOf: [{ const, title }]`),
 * `number`/`integer` (minimum, maximum), `boolean`, and arrays of choices (`items.enum` or `items.anyOf`;
 * minItems, maxItems) — with `required` fields present (after defaults) and no unknown fields.
 * Returns the content with the schema's defaults filled in, or why it does not match.
 */
export function checkElicitationResponse(
  requestedSchema: JsonObject,
  response: { action?: unknown; content?: unknown },
): { ok: true; content?: ElicitationContent } | { ok: false; problem: string } {
  const { action, content } = response;
  if (action === 'decline' || action === 'cancel') {
    return content === undefined ? { ok: true } : { ok: false, problem: `a '${action}' answer carries no content` };
  }
  if (action !== 'accept') return { ok: false, problem: "action must be 'accept', 'decline' or 'cancel'" };
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    return { ok: false, problem: "an 'accept' answer needs content: an object of the requested fields" };
  }
  if (jsonBytes(content) > ELICITATION_ANSWER_LIMITS.contentBytes) {
    return { ok: false, problem: `content is over ${ELICITATION_ANSWER_LIMITS.contentBytes} bytes` };
  }
  const properties = objectOf(requestedSchema.properties) ?? {};
  const filled: Record<string, JsonValue> = { ...(content as Record<string, JsonValue>) };
  for (const [field, property] of Object.entries(properties)) {
    const def = objectOf(property)?.default;
    if (!Object.hasOwn(filled, field) && def !== undefined) filled[field] = def;
  }
  for (const field of Object.keys(filled)) {
    if (!Object.hasOwn(properties, field)) return { ok: false, problem: `field '${field}' was not asked for` };
    const problem = fieldProblem(field, objectOf(properties[field]) ?? {}, filled[field]!);
    if (problem) return { ok: false, problem };
  }
  const required = Array.isArray(requestedSchema.required) ? requestedSchema.required : [];
  for (const field of required) {
    if (typeof field === 'string' && !Object.hasOwn(filled, field)) {
      return { ok: false, problem: `field '${field}' is required` };
    }
  }
  return { ok: true, content: filled as ElicitationContent };
}

/** The values a field may take when it is a choice: `enum`, or the `const` of each titled `oneOf`/`anyOf` option. */
function choices(schema: JsonObject | undefined): JsonValue[] | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum;
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  return titled?.flatMap((option) => {
    const value = objectOf(option)?.const;
    return value === undefined ? [] : [value];
  });
}

function fieldProblem(field: string, schema: JsonObject, value: JsonValue): string | undefined {
  const type = schema.type;
  const options = choices(schema);
  if (type === 'string' || (type === undefined && options)) {
    if (typeof value !== 'string') return `field '${field}' must be a string`;
    if (options && !options.includes(value))
      return `field '${field}' must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}`;
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) {
      return `field '${field}' must have at least ${schema.minLength} characters`;
    }
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) {
      return `field '${field}' must have at most ${schema.maxLength} characters`;
    }
    const formatName = typeof schema.format === 'string' ? schema.format : undefined;
    const format = formatName ? FORMATS[formatName] : undefined;
    if (format && !format.test(value)) return `field '${field}' must be a valid ${formatName}`;
    return undefined;
  }
  if (type === 'number' || type === 'integer') {
    if (typeof value !== 'number' || !Number.isFinite(value)) return `field '${field}' must be a number`;
    if (type === 'integer' && !Number.isInteger(value)) return `field '${field}' must be an integer`;
    if (typeof schema.minimum === 'number' && value < schema.minimum) {
      return `field '${field}' must be at least ${schema.minimum}`;
    }
    if (typeof schema.maximum === 'number' && value > schema.maximum) {
      return `field '${field}' must be at most ${schema.maximum}`;
    }
    return undefined;
  }
  if (type === 'boolean') return typeof value === 'boolean' ? undefined : `field '${field}' must be true or false`;
  if (type === 'array') {
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      return `field '${field}' must be a list of strings`;
    }
    const allowed = choices(objectOf(schema.items));
    const bad = allowed ? value.find((item) => !allowed.includes(item)) : undefined;
    if (bad !== undefined)
      return `field '${field}' may only contain ${allowed!.map((o) => JSON.stringify(o)).join(', ')}`;
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      return `field '${field}' needs at least ${schema.minItems} items`;
    }
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      return `field '${field}' takes at most ${schema.maxItems} items`;
    }
    return undefined;
  }
  return `field '${field}' has a type this runtime cannot check (${JSON.stringify(type)})`;
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

function objectOf(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}
