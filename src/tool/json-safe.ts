import type { JsonValue } from '../protocol/json.js';

const MAX_DEPTH = 32;

/**
 * Turns any value into JSON data, so it can be shown to the model and recorded in workflow history: Errors
 * become `{ name, message, stack }`, Dates ISO strings, Maps objects, Sets arrays, bigints strings; functions,
 * symbols and `undefined` properties are dropped; a circular reference becomes `'[Circular]'`.
 * Returns `undefined` only for a top-level value that has no JSON form (undefined, a function, a symbol).
 */
export function toJsonValue(value: unknown): JsonValue | undefined {
  return convert(value, new WeakSet(), 0);
}

function convert(value: unknown, seen: WeakSet<object>, depth: number): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  seen.add(object);
  try {
    return convertObject(object, seen, depth + 1);
  } finally {
    // Only ancestors count as circular: the same object may legitimately appear twice side by side.
    seen.delete(object);
  }
}

function convertObject(object: object, seen: WeakSet<object>, depth: number): JsonValue {
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
  if (object instanceof Error) {
    const out: Record<string, JsonValue> = { name: object.name, message: object.message };
    if (object.stack !== undefined) out.stack = object.stack;
    return out;
  }
  if (Array.isArray(object)) return object.map((item) => convert(item, seen, depth) ?? null);
  if (object instanceof Set) return [...object].map((item) => convert(item, seen, depth) ?? null);
  if (!(object instanceof Map) && typeof (object as { toJSON?: unknown }).toJSON === 'function') {
    return convert((object as { toJSON(): unknown }).toJSON(), seen, depth) ?? null;
  }
  const entries: Iterable<[unknown, unknown]> =
    object instanceof Map ? object.entries() : Object.entries(object as Record<string, unknown>);
  const out: Record<string, JsonValue> = {};
  for (const [key, item] of entries) {
    const converted = convert(item, seen, depth);
    if (converted !== undefined) out[String(key)] = converted;
  }
  return out;
}
