import { validateSchema, type SchemaCheck, type ToolSchema } from '../tool/schema.js';

/** Rounds of coercion: each may reveal a deeper string-encoded object (an object inside a JSON string). */
const MAX_ROUNDS = 4;

/**
 * Result of {@link validateWithJsonCoercion}: the check, whether any string had to be parsed to pass it, and the
 * arguments as validated (`input`: after coercion, before the schema's defaults and transforms — what a runtime
 * hands to the tool's own validation again, e.g. in another activity).
 */
export type CoercedCheck = SchemaCheck & { coerced: boolean; input: unknown };

/**
 * Validates tool arguments, accepting a JSON string where the schema wants an object or an array: models often
 * send `{ "items": "[1, 2]" }` for `{ "items": [1, 2] }`. When validation fails, every failing path whose value is
 * a string holding a JSON object or array is replaced by the parsed value, and validation is tried again. Works
 * for any schema (Zod or Standard Schema): it relies only on the issues' paths. The input is never mutated.
 */
export async function validateWithJsonCoercion(schema: ToolSchema, args: unknown): Promise<CoercedCheck> {
  let value = args;
  let coerced = false;
  let check = await validateSchema(schema, value);
  for (let round = 0; round < MAX_ROUNDS && !check.success; round++) {
    const next = coerceAtIssues(value, check.issues);
    if (next === undefined) break;
    value = next;
    coerced = true;
    check = await validateSchema(schema, value);
  }
  return { ...check, coerced: coerced && check.success, input: value };
}

/** A copy of `value` with JSON strings parsed at the issues' paths, or undefined when no path held one. */
function coerceAtIssues(value: unknown, issues: readonly unknown[]): unknown {
  let copy: unknown;
  let changed = false;
  for (const issue of issues) {
    const path = pathOf(issue);
    if (path === undefined) continue;
    const current = getAt(copy ?? value, path);
    const parsed = parseJsonContainer(current);
    if (parsed === undefined) continue;
    copy ??= structuredClone(value);
    if (path.length === 0) return parsed;
    setAt(copy, path, parsed);
    changed = true;
  }
  return changed ? copy : undefined;
}

function parseJsonContainer(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!(text.startsWith('{') && text.endsWith('}')) && !(text.startsWith('[') && text.endsWith(']'))) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function pathOf(issue: unknown): Array<string | number> | undefined {
  const raw = (issue as { path?: unknown } | null)?.path;
  if (!Array.isArray(raw)) return undefined;
  const path: Array<string | number> = [];
  for (const segment of raw) {
    const key = typeof segment === 'object' && segment !== null ? (segment as { key?: unknown }).key : segment;
    if (typeof key !== 'string' && typeof key !== 'number') return undefined;
    path.push(key);
  }
  return path;
}

function getAt(value: unknown, path: ReadonlyArray<string | number>): unknown {
  let current = value;
  for (const key of path) {
    // Own properties only: the arguments are model output and the path comes from validating them.
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function setAt(value: unknown, path: ReadonlyArray<string | number>, next: unknown): void {
  const parent = getAt(value, path.slice(0, -1));
  if (typeof parent === 'object' && parent !== null) {
    (parent as Record<string | number, unknown>)[path[path.length - 1]!] = next;
  }
}
