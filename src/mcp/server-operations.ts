import { decide, identityFor, type MCPAuthorizationConfig } from './authorization.js';
import { normalizeCallResult, type McpCallOutcome } from './call-result.js';
import type { McpProgress } from './connection.js';
import type { McpConnectionPool, McpServerTarget } from './connection-pool.js';
import type { McpElicitationHandler } from './elicitation.js';
import { MCPAuthorizationError } from './errors/mcp-authorization-error.js';
import { McpServerError } from './errors/mcp-server-error.js';
import { DEFAULT_LISTING_LIMITS, normalizeListing, type McpListingLimits, type McpServerListing } from './listing.js';
import type { MCPAuthContext } from './types.js';

/** Default MCP request timeout (the MCP SDK's). */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

/** Options of {@link listServerTools}. */
export interface McpListToolsOptions extends MCPAuthContext {
  signal?: AbortSignal;
  /** MCP request timeout per page. Default: the server's `timeout`, else 60000. */
  timeoutMs?: number;
  limits?: Partial<McpListingLimits>;
  /** Applied when `filterOnDiscovery` is set: tools `can` refuses for this user are left out. */
  authorization?: MCPAuthorizationConfig;
}

/** Options of {@link callServerTool}. */
export interface McpCallToolOptions extends MCPAuthContext {
  /** Cancels the request (the SDK sends `notifications/cancelled`); its reason is rethrown unchanged. */
  signal?: AbortSignal;
  /**
   * MCP request timeout in ms (default: the server's `timeout`, else 60000). In a durable run keep it below the
   * activity's start-to-close timeout. Time spent waiting for an elicitation answer does not count.
   */
  timeoutMs?: number;
  /** Give the full timeout again on each progress notification. Default false. */
  resetTimeoutOnProgress?: boolean;
  /**
   * Answers the server's elicitation requests during this call. A call with a handler gets a connection to
   * itself (MCP cannot tell which concurrent request an elicitation belongs to). Without one, elicitations are
   * answered `cancel`.
   */
  onElicitation?: McpElicitationHandler;
  /** Server progress notifications of this call (message redacted). */
  onProgress?: (progress: McpProgress) => void;
  /** True when repeating the call cannot repeat a side effect (readOnly/idempotent hints): affects `retrySafe`. */
  idempotent?: boolean;
  /** Bound on the outcome's JSON size in UTF-8 bytes. Default 512 KiB. */
  maxResultBytes?: number;
  /** Checked before the call when `checkOnExecution` is not false, with this call's `userId` and `context`. */
  authorization?: MCPAuthorizationConfig;
}

/**
 * Lists a server's tools through the pool: all pages, bounded and redacted ({@link normalizeListing}), filtered
 * by `authorization.can` for the given user when `filterOnDiscovery` is set. Records the listing's version in
 * the pool (see `McpConnectionPool.isListingStale`). Throws a classified `McpServerError`.
 */
export async function listServerTools(
  pool: McpConnectionPool,
  target: McpServerTarget,
  options: McpListToolsOptions = {},
): Promise<McpServerListing> {
  const limits = { ...DEFAULT_LISTING_LIMITS, ...options.limits };
  const timeoutMs = options.timeoutMs ?? target.config.timeout ?? DEFAULT_MCP_TIMEOUT_MS;
  const raw = await withFreshRetry(() =>
    pool.use(target, { signal: options.signal }, (connection) =>
      // One more than the limit, so the listing can say that tools were left out.
      connection.listTools({ signal: options.signal, timeoutMs, maxTools: limits.maxTools + 1 }),
    ),
  );
  const listing = normalizeListing(target.serverName, raw.tools, limits, pool.redactor(target), raw.omitted);
  pool.noteListing(target, listing.version);
  const authorization = options.authorization;
  if (!authorization?.filterOnDiscovery) return listing;
  const identity = await identityFor(authorization, options);
  const allowed = [];
  for (const tool of listing.tools) {
    const decision = await decide(authorization.can, {
      toolName: tool.name,
      serverName: target.serverName,
      action: 'discovery',
      ...identity,
    });
    if (decision.allowed) allowed.push(tool);
  }
  return { ...listing, tools: allowed };
}

/**
 * Calls one tool through the pool and returns its normalized outcome (`ok` or `tool-error`, plain JSON,
 * bounded, redacted). Refuses with {@link MCPAuthorizationError} when `authorization.can` says no for this
 * call's user. Failures are classified `McpServerError`s whose `retrySafe` says whether a retry on a fresh
 * connection could repeat a side effect; a connection found dead before the request was sent is replaced and the
 * call retried once, transparently.
 */
export async function callServerTool(
  pool: McpConnectionPool,
  target: McpServerTarget,
  toolName: string,
  args: Record<string, unknown>,
  options: McpCallToolOptions = {},
): Promise<McpCallOutcome> {
  const authorization = options.authorization;
  if (authorization && authorization.checkOnExecution !== false) {
    const decision = await decide(authorization.can, {
      toolName,
      serverName: target.serverName,
      action: 'execution',
      arguments: args,
      ...(await identityFor(authorization, options)),
    });
    if (!decision.allowed) throw new MCPAuthorizationError(toolName, target.serverName, decision.reason);
  }
  const timeoutMs = options.timeoutMs ?? target.config.timeout ?? DEFAULT_MCP_TIMEOUT_MS;
  const result = await withFreshRetry(() =>
    pool.use(target, { exclusive: options.onElicitation !== undefined, signal: options.signal }, (connection) =>
      connection.callTool(toolName, args, {
        signal: options.signal,
        timeoutMs,
        resetTimeoutOnProgress: options.resetTimeoutOnProgress,
        onProgress: options.onProgress,
        onElicitation: options.onElicitation,
        idempotent: options.idempotent,
      }),
    ),
  );
  return normalizeCallResult(result, {
    serverName: target.serverName,
    toolName,
    maxResultBytes: options.maxResultBytes,
    redactor: pool.redactor(target),
  });
}

/** Runs `operation` again once when it failed on a connection that turned out dead before the request left. */
async function withFreshRetry<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (McpServerError.isInstance(error) && error.reason === 'connection-lost' && !error.requestSent)
      return operation();
    throw error;
  }
}
