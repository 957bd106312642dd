// The one check of an answer to an MCP question. The run's update validator (workflow sandbox), the MCP layer (before
// the answer is sent to the server) and the CLI all call it, so an answer the run records is the answer the server
// gets. Per-field rules are checked by @cfworker/json-schema: eval-free, so it runs in the workflow sandbox, and it
// counts string lengths in code points, as JSON Schema defines them.
import { validate, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { jsonBytes } from './bytes.js';
import type { ElicitationContent } from './elicitation.js';
import { ELICITATION_LIMITS } from './elicitation.js';
import type { JsonObject, JsonValue } from './json.js';

/** Outcome of {@link checkElicitationResponse}: the content with defaults filled in, or why it does not fit. */
export type ElicitationAnswerCheck = { ok: true; content?: ElicitationContent } | { ok: false; problem: string };

/**
 * Checks an answer against the question's schema: the action, then for `accept` an object of fields whose values
 * match their properties — `string` (minLength, maxLength in code points; format email/uri/date/date-time and the
 * other JSON Schema formats; choices: `enum` or titled `oneOf: [{ const, title }]`), `number`/`integer` (minimum,
 * maximum), `boolean`, and arrays of choices (`items.enum` or `items.anyOf`; minItems, maxItems) — with `required`
 * fields present (after defaults, SEP-1034) and no unknown fields. Server-supplied `pattern`s are not run (a
 * hostile regex would stall the worker or the workflow). Returns the content with defaults filled in.
 */
export function checkElicitationResponse(
  requestedSchema: JsonObject,
  response: { action?: unknown; content?: unknown },
): ElicitationAnswerCheck {
  const { action, content } = response;
  if (action === 'decline' || action === 'cancel') {
    return content === undefined ? { ok: true } : { ok: false, problem: `a '${action}' answer carries no content` };
  }
  if (action !== 'accept') return { ok: false, problem: "action must be 'accept', 'decline' or 'cancel'" };
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    return { ok: false, problem: "an 'accept' answer needs content: an object of the requested fields" };
  }
  const properties = objectOf(requestedSchema.properties) ?? {};
  const filled: Record<string, JsonValue> = { ...(content as Record<string, JsonValue>) };
  for (const [field, property] of Object.entries(properties)) {
    const def = objectOf(property)?.default;
    if (!Object.hasOwn(filled, field) && def !== undefined) filled[field] = def;
  }
  if (jsonBytes(filled) > ELICITATION_LIMITS.contentBytes) {
    return { ok: false, problem: `content is over ${ELICITATION_LIMITS.contentBytes} bytes` };
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

/** JSON Schema type of a field, or undefined when MCP's flat subset has no such field. */
function fieldType(schema: JsonObject): 'string' | 'number' | 'integer' | 'boolean' | 'array' | undefined {
  const type = schema.type;
  if (type === undefined && choices(schema)) return 'string';
  return type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' || type === 'array'
    ? type
    : undefined;
}

/** The keywords of a field's schema the check applies: MCP's flat subset, never a server's `pattern` or `$ref`. */
function checkedSchema(schema: JsonObject, type: NonNullable<ReturnType<typeof fieldType>>): Schema {
  const picked: Schema = { type };
  for (const key of ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems'] as const) {
    if (typeof schema[key] === 'number') picked[key] = schema[key];
  }
  if (typeof schema.format === 'string') picked.format = schema.format;
  const options = type === 'array' ? choices(objectOf(schema.items)) : choices(schema);
  if (options && type === 'array') picked.items = { enum: options };
  else if (options) picked.enum = options;
  return picked;
}

const TYPE_PROBLEMS = {
  string: 'must be a string',
  number: 'must be a number',
  integer: 'must be an integer',
  boolean: 'must be true or false',
  array: 'must be a list of strings',
} as const;

function fieldProblem(field: string, schema: JsonObject, value: JsonValue): string | undefined {
  const type = fieldType(schema);
  if (!type) return `field '${field}' has a type this runtime cannot check (${JSON.stringify(schema.type)})`;
  // Numbers must be numbers before "integer" is asked, and lists hold strings only (MCP's subset).
  if (type === 'integer' && typeof value !== 'number') return `field '${field}' must be a number`;
  if (type === 'array' && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
    return `field '${field}' ${TYPE_PROBLEMS.array}`;
  }
  const checked = checkedSchema(schema, type);
  const result = validate(value, checked, '2020-12', Object.create(null) as Record<string, Schema>, false);
  if (result.valid) return undefined;
  return `field '${field}' ${describe(result.errors, checked, type)}`;
}

/** The first failed keyword, in words. */
function describe(errors: OutputUnit[], schema: Schema, type: keyof typeof TYPE_PROBLEMS): string {
  const keywords = new Set(errors.map((error) => error.keyword));
  const list = (values: unknown[]) => values.map((o) => JSON.stringify(o)).join(', ');
  if (keywords.has('type')) return TYPE_PROBLEMS[type];
  if (keywords.has('enum')) {
    const options = (type === 'array' ? (schema.items as Schema).enum : schema.enum) ?? [];
    return type === 'array' ? `may only contain ${list(options)}` : `must be one of ${list(options)}`;
  }
  if (keywords.has('minLength')) return `must have at least ${schema.minLength} characters`;
  if (keywords.has('maxLength')) return `must have at most ${schema.maxLength} characters`;
  if (keywords.has('format')) return `must be a valid ${schema.format}`;
  if (keywords.has('minimum')) return `must be at least ${schema.minimum}`;
  if (keywords.has('maximum')) return `must be at most ${schema.maximum}`;
  if (keywords.has('minItems')) return `needs at least ${schema.minItems} items`;
  if (keywords.has('maxItems')) return `takes at most ${schema.maxItems} items`;
  return errors[0]?.error ?? 'does not fit the question';
}

function objectOf(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}
