import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describeError, systemErrorCode } from './describe-error.js';
import { McpServerError } from './errors/mcp-server-error.js';
import type { Redactor } from './secrets.js';
import { MAX_SERVER_MESSAGE_BYTES } from './transport.js';

/** What {@link classifyConnectionFailure} needs to know about the failed operation and its connection. */
export interface ConnectionFailureContext {
  serverName: string;
  /** Set for tool calls. */
  toolName?: string;
  /** True when the request was handed to the transport. */
  requestSent: boolean;
  /** True when repeating the operation cannot repeat a side effect. */
  idempotent?: boolean;
  redactor: Redactor;
  /** The last lines a stdio server wrote to stderr (quoted, redacted, in connection-lost messages). */
  stderrTail: string;
  /** The server sent a message over the size bound. */
  oversized: boolean;
}

/**
 * Turns an SDK or transport failure into a classified {@link McpServerError}, and says whether the connection is
 * broken (and must be closed so the pool replaces it). Messages are redacted and say whether retrying on a
 * fresh connection is safe.
 */
export function classifyConnectionFailure(
  error: unknown,
  context: ConnectionFailureContext,
): { error: McpServerError; broken: boolean } {
  const server = context.serverName;
  const what = context.toolName ? `MCP tool '${context.toolName}' on server '${server}'` : `MCP server '${server}'`;
  const detail = context.redactor.text(describeError(error));
  const base = { serverName: server, toolName: context.toolName, idempotent: context.idempotent };
  if (context.oversized) {
    return {
      broken: true,
      error: new McpServerError({
        ...base,
        reason: 'result-too-large',
        requestSent: true,
        message: `${what} sent a message of more than ${MAX_SERVER_MESSAGE_BYTES} bytes; the connection was closed.`,
      }),
    };
  }
  const lost = (requestSent: boolean, hint: string): { error: McpServerError; broken: boolean } => {
    const tail = context.stderrTail.trim()
      ? ` Server stderr: ${context.redactor.text(context.stderrTail.trim().slice(-500))}`
      : '';
    return {
      broken: true,
      error: new McpServerError({
        ...base,
        reason: 'connection-lost',
        requestSent,
        message: `${what}: connection lost (${detail}). ${hint}${tail}`,
      }),
    };
  };
  const kept = (reason: 'timeout' | 'protocol', requestSent: boolean, message: string) => ({
    broken: false,
    error: new McpServerError({ ...base, reason, requestSent, message }),
  });
  const mayHaveRun = context.toolName
    ? context.idempotent
      ? 'The tool is marked idempotent, so retrying on a fresh connection is safe.'
      : 'The server may have run the tool: retrying on a fresh connection may repeat its effect.'
    : 'Retrying on a fresh connection is safe.';
  const notSent = 'The request did not reach the server; retrying on a fresh connection is safe.';
  if (error instanceof McpError) {
    if (error.code === (ErrorCode.ConnectionClosed as number)) return lost(context.requestSent, mayHaveRun);
    const reason = error.code === (ErrorCode.RequestTimeout as number) ? 'timeout' : 'protocol';
    return kept(reason, true, `${what} answered with an error: ${detail}`);
  }
  if (error instanceof StreamableHTTPError && error.code === 404) {
    return lost(false, 'The server no longer knows this session; a fresh connection starts a new one.');
  }
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    const status = typeof error.code === 'number' ? error.code : undefined;
    if (status !== undefined && status >= 400 && status < 500) return kept('protocol', false, `${what}: ${detail}`);
    return lost(false, notSent);
  }
  if (error instanceof Error && error.message === 'Not connected') {
    return lost(false, 'The request was not sent; retrying on a fresh connection is safe.');
  }
  const code = systemErrorCode(error);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') return lost(false, notSent);
  if (error instanceof Error && (error.name === 'ZodError' || error.name === 'SyntaxError')) {
    return kept('protocol', true, `${what} sent a malformed answer: ${detail}`);
  }
  return lost(context.requestSent, mayHaveRun);
}
