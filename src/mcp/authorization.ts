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

/** An identity a `verifyIdentity` hook vouches for. */
export interface MCPVerifiedIdentity {
  userId?: string;
  context?: Record<string, unknown>;
}

/**
 * Derives or verifies the identity of a run or call from what its starter stated (`userId` and `context` are
 * claims: any client with access to the namespace can start a run with any of them). Return the identity `can`
 * should see, or `undefined` when the claims cannot be verified. See {@link verifySignedClaims}.
 */
export type MCPVerifyIdentity = (stated: {
  userId?: string;
  context: Map<string, unknown>;
}) => MCPVerifiedIdentity | undefined | Promise<MCPVerifiedIdentity | undefined>;

/** Access control for a configuration's MCP tools. */
export interface MCPAuthorizationConfig {
  can: MCPCanFunction;
  /**
   * When set, `can` sees only the identity this hook returns (no user and an empty context when it returns
   * `undefined` or throws), never what the starter stated: `context: { role: 'admin' }` in a start request then
   * opens nothing. The analogue of an agent's `authorizeDecision` for approvals.
   */
  verifyIdentity?: MCPVerifyIdentity;
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

/**
 * The user and context `can` is given: as stated, or, with `verifyIdentity`, only what it vouches for (fail closed:
 * nothing when it refuses or throws).
 */
export async function identityFor(
  authorization: MCPAuthorizationConfig,
  stated: MCPAuthContext,
): Promise<{ userId?: string; context: Map<string, unknown> }> {
  const context = contextMap(stated.context);
  const userId = stated.userId;
  if (!authorization.verifyIdentity) return { ...(userId !== undefined ? { userId } : {}), context };
  try {
    const verified = await authorization.verifyIdentity({ ...(userId !== undefined ? { userId } : {}), context });
    if (!verified) return { context: new Map() };
    return {
      ...(verified.userId !== undefined ? { userId: verified.userId } : {}),
      context: new Map(Object.entries(verified.context ?? {})),
    };
  } catch (error) {
    getGlobalLogger().error('MCP verifyIdentity failed; the run has no verified identity.', {
      error: (error as Error)?.message ?? String(error),
    });
    return { context: new Map() };
  }
}

/** The auth context's `context` as a Map (a plain object is converted; nothing → an empty Map). */
export function contextMap(context: MCPAuthContext['context']): Map<string, unknown> {
  if (context instanceof Map) return context;
  return new Map(Object.entries(context ?? {}));
}
