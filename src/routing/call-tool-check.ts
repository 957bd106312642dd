import { notSearchedMessage } from '../protocol/routing.js';
import { isProviderTool } from '../tool/provider-tool.js';
import type { RegisteredTool } from '../tool/normalize-tool.js';
import type { AnyTool } from '../tool/tool.js';
import { validateWithJsonCoercion } from './coerce-args.js';
import { CALL_TOOL_NAME, MAX_TOOL_NAME_LENGTH, ROUTING_TOOL_NAMES, SEARCH_TOOLS_NAME } from './constants.js';

/** Why `callTool` refused a call. */
export type CallToolRefusal =
  | 'invalid-call'
  | 'recursion'
  | 'not-in-pool'
  | 'not-callable'
  | 'not-searched'
  | 'invalid-args';

/**
 * The verdict on one `callTool` call. `valid` carries the target, its parsed arguments (`args`, the schema's
 * output) and the arguments as validated (`input`, JSON strings already parsed): the runtime then runs the target
 * exactly as a direct call (approval, hooks, its own activity and options). `refused` carries a message the model
 * can act on; it is the call's result and the run goes on.
 */
export type CallToolCheck =
  | { kind: 'valid'; tool: AnyTool; args: unknown; input: unknown; coerced: boolean }
  | { kind: 'refused'; reason: CallToolRefusal; message: string; toolName?: string };

/** What {@link checkCallTool} checks a call against. */
export interface CallToolCheckContext {
  /** The routing pool (a `ToolManager` fits). */
  pool: { getToolByName(name: string): RegisteredTool | undefined };
  /** Tools the model sees directly (to point the model at them instead). */
  visibleNames?: ReadonlySet<string>;
  /** Names returned by `searchTools` in this run so far. */
  searched: ReadonlySet<string>;
  /** Default true in the config: refuse tools that were not searched. */
  enforceSearchBeforeCall: boolean;
}

/**
 * Checks a `callTool({ name, args })` call, in order: a usable `name`; not a routing built-in (recursion); in the
 * pool; callable here (not client-side, not a provider tool); searched in this run when enforced; `args` valid for
 * the target's schema — `args` may be an object, a JSON string, null or absent (= `{}`), and JSON strings inside
 * it are accepted where the schema wants an object or array. Every refusal is a message for the model.
 */
export async function checkCallTool(
  input: { name?: unknown; args?: unknown },
  context: CallToolCheckContext,
): Promise<CallToolCheck> {
  const name = input.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_TOOL_NAME_LENGTH) {
    return refuse(
      'invalid-call',
      `callTool needs "name": the exact name of a tool returned by ${SEARCH_TOOLS_NAME} (at most ` +
        `${MAX_TOOL_NAME_LENGTH} characters).`,
    );
  }
  if (ROUTING_TOOL_NAMES.includes(name)) {
    return refuse(
      'recursion',
      `Tool "${name}" cannot be called via ${CALL_TOOL_NAME} to avoid recursion. Use it directly instead.`,
      name,
    );
  }
  const target = context.pool.getToolByName(name);
  if (!target) {
    const direct = context.visibleNames?.has(name)
      ? ` It is available directly: call "${name}" itself instead of going through ${CALL_TOOL_NAME}.`
      : ` Call ${SEARCH_TOOLS_NAME} with a description of what you need and use a name it returns.`;
    return refuse('not-in-pool', `Tool not found in pool: ${name}.${direct}`, name);
  }
  if (isProviderTool(target) || target.isClientSide()) {
    const where = isProviderTool(target) ? 'runs inside the model provider' : 'runs on the client';
    return refuse(
      'not-callable',
      `Tool "${name}" ${where} and cannot be executed through ${CALL_TOOL_NAME}. Use another tool, or answer ` +
        `without it.`,
      name,
    );
  }
  if (context.enforceSearchBeforeCall && !context.searched.has(name)) {
    return refuse('not-searched', notSearchedMessage(name), name);
  }
  const args = parseArgs(input.args);
  if (!args.ok) {
    return refuse('invalid-args', `Invalid arguments for tool "${name}": ${args.message}`, name);
  }
  const check = await validateWithJsonCoercion(target.parameters, args.value);
  if (!check.success) {
    return refuse(
      'invalid-args',
      `Invalid arguments for tool "${name}": ${check.message}\nFix the arguments to match the tool's ` +
        `parametersSchema from ${SEARCH_TOOLS_NAME} and call again.`,
      name,
    );
  }
  return { kind: 'valid', tool: target, args: check.value, input: check.input, coerced: check.coerced };
}

function parseArgs(raw: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      message: `"args" is a string but not valid JSON (${reason}); pass the arguments as an object.`,
    };
  }
}

function refuse(reason: CallToolRefusal, message: string, toolName?: string): CallToolCheck {
  return toolName === undefined ? { kind: 'refused', reason, message } : { kind: 'refused', reason, message, toolName };
}
