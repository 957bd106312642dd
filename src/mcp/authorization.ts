import { getGlobalLogger } from '../logger.js';
import type { MCPAuthContext } from './types.js';

/** When `can` is asked: listing tools (`discovery`) or running one (`execution`). */
export type MCPAuthorizationAction = 'discovery' | 'execution';

/** What `can` is told. `toolName` is the tool's own name on its server (no `<server>_` prefix). */
export interface MCPCanParams {
  toolName: string;
  serverName: string;
  action: MCPAuthorizationAction;
  /** The call's arguments (execution only). */
  arguments?: Record<string, unknown>;
  /** The user of the current call or run (never one captured earlier). */
  userId?: string;
  /** The context of the current call or run, as a Map. */
  context?: Map<string, unknown>;
}

/** `true`/`false`, or `{ allowed, reason }` to explain a refusal. */
export type MCPCanResult = boolean | { allowed: boolean; reason?: string };

/** Decides whether a user may see or run an MCP tool. */
export type MCPCanFunction = (params: MCPCanParams) => MCPCanResult | Promise<MCPCanResult>;

/** Access control for a configuration's MCP tools. */
export interface MCPAuthorizationConfig {
  can: MCPCanFunction;
  /** Hide tools `can` refuses from listings (`getTools`, `getToolsets`, raw listings). Default false. */
  filterOnDiscovery?: boolean;
  /** Ask `can` before every call, with that call's user and context. Default **true** (VoltAgent: false). */
  checkOnExecution?: boolean;
}

/** VoltAgent's name for the user/context given to `getTools`. */
export type MCPAuthorizationContext = MCPAuthContext;

/**
 * Asks `can`. A `can` that throws refuses (fail closed), with the error's message as the reason and an error
 * log: an authorization bug must not open access.
 */
export async function decide(
  can: MCPCanFunction,
  params: MCPCanParams,
): Promise<{ allowed: boolean; reason?: string }> {
  try {
    const result = await can(params);
    if (typeof result === 'boolean') return { allowed: result };
    if (result && typeof result === 'object') {
      return { allowed: result.allowed === true, ...(result.reason ? { reason: String(result.reason) } : {}) };
    }
    return { allowed: false, reason: 'the authorization check returned no decision' };
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    getGlobalLogger().error(
      `MCP authorization check failed for tool '${params.toolName}' on server '${params.serverName}'; refusing.`,
      { error: message },
    );
    return { allowed: false, reason: `the authorization check failed: ${message}` };
  }
}

/** The auth context's `context` as a Map (a plain object is converted; nothing → an empty Map). */
export function contextMap(context: MCPAuthContext['context']): Map<string, unknown> {
  if (context instanceof Map) return context;
  return new Map(Object.entries(context ?? {}));
}
