import { getGlobalLogger } from '../src/logger.js';
import type { RawToolCall } from '../src/models/call-model.js';
import type { CheckedToolCall, JsonValue } from '../src/protocol/index.js';
import { checkCallTool } from '../src/routing/call-tool-check.js';
import type { RunToolRouting } from '../src/routing/resolve-run-routing.js';
import { checkToolCall, type ToolLookup } from '../src/tool/check-tool-call.js';
import { redactSecrets } from '../src/secrets/redact-secrets.js';
import { toJsonValue } from '../src/tool/json-safe.js';
import { offeredLookup } from './run-routing.js';

/** Checks one call against some tools: valid (with its approval need and activity options) or invalid. */
export type DirectCallCheck = (lookup: ToolLookup, call: RawToolCall) => Promise<CheckedToolCall>;

type RoutedRun = Extract<RunToolRouting, { enabled: true }>;

/**
 * Checks one call of a routed run against what the model was offered, marking the routing built-ins for the
 * workflow:
 * - `searchTools`: its arguments; then `route: search` with the effective top-K (call > config > embedding config
 *   > 1, capped) and, with an embedding model, the pool's batch plan;
 * - `callTool`: its arguments, then the target's checks in the library's order (name, recursion, pool, callable,
 *   arguments with JSON-string coercion) — except "searched in this run", which is the workflow's (the searched
 *   set is workflow state). A valid call carries the target's approval need (a dynamic one evaluated on the
 *   target's arguments), client-side flag and activity options; a refusal of the arguments is marked too, so the
 *   workflow's searched check still comes first. With `argsFromCall` (the workflow reads them from the model's
 *   call), arguments that validation left unchanged are not copied into the route;
 * - any other visible tool (exposed, or a user tool named like a built-in): a direct call.
 */
export async function checkRoutedCall(
  routing: RoutedRun,
  call: RawToolCall,
  checkDirect: DirectCallCheck,
  options: { argsFromCall?: boolean } = {},
): Promise<CheckedToolCall> {
  const { router } = routing;
  const offered = offeredLookup(routing.visible);
  const tool = offered.getAllToolNames().includes(call.toolName) ? offered.getToolByName(call.toolName) : undefined;
  if (tool !== router.searchTools && tool !== router.callTool) return checkDirect(offered, call);
  const id = { toolCallId: call.toolCallId, toolName: call.toolName };
  const own = await checkToolCall(offered, call.toolName, call.input);
  if (own.kind !== 'valid') return { ...id, status: 'invalid', error: own.message };

  if (tool === router.searchTools) {
    const { query, topK } = own.args as { query: string; topK?: number };
    try {
      const embedding = await router.embeddingPlan();
      return {
        ...id,
        status: 'valid',
        needsApproval: false,
        clientSide: false,
        route: { kind: 'search', query, topK: router.topK(topK), ...(embedding ? { embedding } : {}) },
      };
    } catch (err) {
      // The embedding model cannot be built here (missing key, unknown provider; describeAgent refuses such a run
      // at its start, so the worker's config changed mid-run). The model's response is kept and the run goes on.
      const reason = redactSecrets(err instanceof Error ? err.message : String(err));
      getGlobalLogger().warn('Tool search unavailable: the embedding model cannot be built', { error: reason });
      return {
        ...id,
        status: 'invalid',
        error: `Tool search is unavailable on this worker (${reason}). Answer without searching for tools.`,
      };
    }
  }

  const enforceSearchBeforeCall = router.enforceSearchBeforeCall;
  const verdict = await checkCallTool(own.args as { name?: unknown; args?: unknown }, {
    pool: router.pool(),
    visibleNames: router.visibleNames(),
    searched: new Set(),
    enforceSearchBeforeCall: false,
  });
  if (verdict.kind === 'refused') {
    const target = verdict.reason === 'invalid-args' ? verdict.toolName : undefined;
    return {
      ...id,
      status: 'invalid',
      error: verdict.message,
      ...(target !== undefined
        ? { route: { kind: 'call' as const, target, args: null, enforceSearchBeforeCall } }
        : {}),
    };
  }
  // The target's arguments as validated (JSON strings parsed), which its executeTool activity validates again.
  const args: JsonValue = toJsonValue(verdict.input) ?? {};
  const target = await checkDirect(offeredLookup([verdict.tool]), {
    ...call,
    toolName: verdict.tool.name,
    input: args,
  });
  if (target.status === 'invalid') return { ...id, status: 'invalid', error: target.error };
  // The model's response already holds arguments that validation left unchanged (as an object or a JSON string):
  // recorded once, not twice.
  const once = options.argsFromCall === true && sameJson(args, modelArgs(call.input));
  return {
    ...target,
    ...id,
    route: { kind: 'call', target: verdict.tool.name, ...(once ? {} : { args }), enforceSearchBeforeCall },
  };
}

/**
 * `callTool`'s `args` object as the model wrote it: the object, or the object a JSON string holds, as the workflow
 * reads it (`modelArgs` in workflows/tool-calls.ts); undefined when it wrote anything else.
 */
function modelArgs(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return undefined;
  let args = (input as { args?: unknown }).args;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? args : undefined;
}

function sameJson(checked: JsonValue, given: unknown): boolean {
  return given !== undefined && JSON.stringify(checked) === JSON.stringify(toJsonValue(given));
}
