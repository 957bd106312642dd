import { ApplicationFailure } from '@temporalio/common';
import { describeError } from './describe-error.js';
import { MCPAuthorizationError } from './errors/mcp-authorization-error.js';
import { MCPConfigurationError } from './errors/mcp-configuration-error.js';
import { McpServerError } from './errors/mcp-server-error.js';
import { McpToolError } from './errors/mcp-tool-error.js';

/**
 * Failure types of MCP work as it crosses an activity boundary: stable `Area.Reason` strings for retry policies
 * (`nonRetryableErrorTypes`) and clients.
 */
export const McpFailureType = {
  /** Bad configuration (unsupported type, unknown server). Not retryable. */
  Configuration: 'Mcp.Configuration',
  /** Could not connect. Retryable, after the pool's back-off (`nextRetryDelay`). */
  ConnectFailed: 'Mcp.ConnectFailed',
  /** The connection died. Retryable only when `retrySafe` (request not sent, or the tool is idempotent). */
  ConnectionLost: 'Mcp.ConnectionLost',
  /** No answer within the MCP request timeout. Retryable only when `retrySafe` (listing, idempotent tools). */
  Timeout: 'Mcp.Timeout',
  /** The server answered with a protocol error or a malformed result. Not retryable. */
  Protocol: 'Mcp.ProtocolError',
  /** The result exceeds the configured bounds. Not retryable. */
  ResultTooLarge: 'Mcp.ResultTooLarge',
  /** The worker's pool is closed (shutting down). Retryable: another worker picks the task up. */
  PoolClosed: 'Mcp.PoolClosed',
  /** `authorization.can` refused. Not retryable. */
  AuthorizationDenied: 'Mcp.AuthorizationDenied',
  /** The remote tool answered `isError`. Not retryable. */
  ToolError: 'Mcp.ToolError',
  /** Anything else. Retryable: Temporal's retry policy bounds it. */
  Unknown: 'Mcp.Error',
} as const;

/** One of the {@link McpFailureType} strings. */
export type McpFailureTypeName = (typeof McpFailureType)[keyof typeof McpFailureType];

const BY_REASON = {
  configuration: McpFailureType.Configuration,
  'connect-failed': McpFailureType.ConnectFailed,
  'connection-lost': McpFailureType.ConnectionLost,
  timeout: McpFailureType.Timeout,
  protocol: McpFailureType.Protocol,
  'result-too-large': McpFailureType.ResultTooLarge,
  'pool-closed': McpFailureType.PoolClosed,
} as const;

/**
 * Turns an MCP failure into an `ApplicationFailure` with a stable type and the right retry decision. Callers
 * rethrow aborts (the activity's cancellation) unchanged before classifying. Messages of the library's errors
 * hold no configured secrets; an unknown error's message is passed through `redact` when given.
 */
export function classifyMcpError(
  error: unknown,
  redact: (text: string) => string = (text) => text,
): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (McpServerError.isInstance(error)) {
    const type = BY_REASON[error.reason];
    const retryable =
      error.reason === 'connect-failed' ||
      error.reason === 'pool-closed' ||
      ((error.reason === 'connection-lost' || error.reason === 'timeout') && error.retrySafe);
    const details = [{ serverName: error.serverName, toolName: error.toolName ?? null, retrySafe: error.retrySafe }];
    return ApplicationFailure.create({
      type,
      message: error.message,
      nonRetryable: !retryable,
      details,
      ...(error.retryAfterMs !== undefined ? { nextRetryDelay: error.retryAfterMs } : {}),
    });
  }
  if (MCPAuthorizationError.isInstance(error)) {
    return ApplicationFailure.create({
      type: McpFailureType.AuthorizationDenied,
      message: error.message,
      nonRetryable: true,
    });
  }
  if (McpToolError.isInstance(error)) {
    return ApplicationFailure.create({ type: McpFailureType.ToolError, message: error.message, nonRetryable: true });
  }
  if (MCPConfigurationError.isInstance(error)) {
    return ApplicationFailure.create({
      type: McpFailureType.Configuration,
      message: error.message,
      nonRetryable: true,
    });
  }
  return ApplicationFailure.create({ type: McpFailureType.Unknown, message: redact(describeError(error)) });
}
