import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.McpServerError');

/** Why talking to an MCP server failed. */
export type McpFailureReason =
  /** The configuration cannot work: unsupported `type`, unknown server name. Fix the configuration. */
  | 'configuration'
  /** No connection could be opened (spawn failed, connection refused, handshake failed or timed out). */
  | 'connect-failed'
  /** The connection died (process exited, socket closed, session gone) before the answer came. */
  | 'connection-lost'
  /** No answer within the MCP request timeout (time spent waiting for a person's elicitation answer excluded). */
  | 'timeout'
  /** The server answered with a protocol error (unknown method, invalid params, malformed result). */
  | 'protocol'
  /** The answer is larger than the configured bounds allow. */
  | 'result-too-large'
  /** The pool was closed (the worker is shutting down). */
  | 'pool-closed';

/** The stable `code` of an {@link McpServerError}, one per {@link McpFailureReason}. */
export const MCP_FAILURE_CODES = {
  configuration: 'Mcp.Configuration',
  'connect-failed': 'Mcp.ConnectFailed',
  'connection-lost': 'Mcp.ConnectionLost',
  timeout: 'Mcp.Timeout',
  protocol: 'Mcp.ProtocolError',
  'result-too-large': 'Mcp.ResultTooLarge',
  'pool-closed': 'Mcp.PoolClosed',
} as const satisfies Record<McpFailureReason, string>;

/**
 * A classified failure of an MCP server interaction. Its message never contains configured secrets (they are
 * redacted before the error is built), so it can be recorded in workflow history as is.
 *
 * `retrySafe` says whether doing the same thing again on a fresh connection cannot repeat a side effect: true when
 * the request never reached the server (connect failures, a connection found dead before sending), or when the
 * caller said the operation is idempotent (listing; tools annotated `readOnlyHint` / `idempotentHint`).
 */
export class McpServerError extends DurableAgentError {
  private readonly [MARKER] = true;
  readonly serverName: string;
  readonly reason: McpFailureReason;
  /** The tool being called, for call failures (its own name on the server). */
  readonly toolName?: string;
  /** True when the request may have reached the server (and so may have had effects there). */
  readonly requestSent: boolean;
  /** True when repeating the operation on a fresh connection cannot repeat a side effect. */
  readonly retrySafe: boolean;
  /** For `connect-failed`: how long the pool will refuse new attempts (its back-off). */
  readonly retryAfterMs?: number;

  constructor(options: {
    serverName: string;
    reason: McpFailureReason;
    message: string;
    toolName?: string;
    requestSent?: boolean;
    idempotent?: boolean;
    retryAfterMs?: number;
  }) {
    super({ code: MCP_FAILURE_CODES[options.reason], message: options.message });
    this.name = 'McpServerError';
    this.serverName = options.serverName;
    this.reason = options.reason;
    if (options.toolName !== undefined) this.toolName = options.toolName;
    this.requestSent = options.requestSent ?? false;
    this.retrySafe = !this.requestSent || options.idempotent === true;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** True for a {@link McpServerError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is McpServerError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
