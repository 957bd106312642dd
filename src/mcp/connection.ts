import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitResult,
  type Tool as SdkTool,
} from '@modelcontextprotocol/sdk/types.js';
import { getGlobalLogger } from '../logger.js';
import { classifyConnectionFailure } from './connection-failure.js';
import { describeError } from './describe-error.js';
import {
  CANCEL,
  normalizeElicitationRequest,
  validateElicitationAnswer,
  type McpElicitationHandler,
} from './elicitation.js';
import { McpServerError } from './errors/mcp-server-error.js';
import { PausableDeadline } from './pausable-deadline.js';
import { LinearJsonSchemaValidator } from './schema-validator.js';
import type { Redactor } from './secrets.js';
import { MAX_SERVER_MESSAGE_BYTES, createTransport, transportKinds } from './transport.js';
import type { MCPServerConfig, MCPTransportKind } from './types.js';
import type { McpProgress } from '../protocol/mcp-call.js';

// The SDK arms a plain setTimeout with the request timeout; ours is enforced by a PausableDeadline instead, so
// the SDK's is set to the largest delay a timer accepts (a larger one would fire at once).
const MAX_TIMER_MS = 2_147_483_647;
const STDERR_TAIL_CHARS = 2000;
const PROBE_TIMEOUT_MS = 5000;
const MAX_LIST_PAGES = 50;

/** A progress notification of a running call (the protocol's type, which the tool library names too). */
export type { McpProgress };

/** Options of one call on a connection. */
export interface ConnectionCallOptions {
  signal?: AbortSignal;
  /** MCP request timeout; the clock stops while an elicitation of this call is outstanding. */
  timeoutMs: number;
  /** Give the full timeout again on every progress notification. */
  resetTimeoutOnProgress?: boolean;
  onProgress?: (progress: McpProgress) => void;
  /** Answers elicitations the server sends during this call (only when the call has the connection to itself). */
  onElicitation?: McpElicitationHandler;
}

/** What opening a connection needs. */
export interface ConnectionInit {
  serverName: string;
  config: MCPServerConfig;
  clientInfo: { name: string; version: string };
  connectTimeoutMs: number;
  redactor: Redactor;
  /** The server sent `notifications/tools/list_changed`. */
  onListChanged: () => void;
  /** The connection closed (for whatever reason); called once. */
  onClosed: (connection: McpConnection) => void;
}

interface CallSlot {
  onElicitation?: McpElicitationHandler;
  deadline?: PausableDeadline;
  signal: AbortSignal;
}

let nextConnectionId = 1;

/**
 * One live connection to an MCP server: the official SDK `Client` on one transport. Routes the server's
 * elicitation requests to the call that caused them, enforces a pausable request timeout, notices a dead peer
 * (process exit, closed socket) and closes itself, and keeps every error message free of configured secrets.
 * Connections are made and shared by {@link McpConnectionPool}; use that, not this class.
 */
export class McpConnection {
  readonly id = nextConnectionId++;
  /** Calls and listings currently running on this connection. */
  readonly active = new Set<CallSlot>();
  /** Set by the pool while one call holds the connection exclusively. */
  exclusive = false;
  /** When the last operation ended (for idle eviction). */
  lastUsedAt = Date.now();
  private closedFlag = false;
  private probing = false;
  private ready = false;
  private stderrTail = '';
  private oversizeBytes: number | undefined;

  private constructor(
    private readonly init: ConnectionInit,
    private readonly client: Client,
    /** The transport actually in use (`http` resolves to Streamable HTTP or SSE). */
    readonly transport: MCPTransportKind,
  ) {}

  /** True once the connection is closed; it is never reused. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** The server's name for itself, from the handshake. */
  get serverVersion(): { name: string; version: string } | undefined {
    return this.client.getServerVersion();
  }

  /**
   * Opens a connection: each transport of the configuration in turn (for `http`, Streamable HTTP then SSE).
   * Throws a `connect-failed` {@link McpServerError}: `MCP connection failed: …`, or for `http`
   * `MCP connection failed with both transports: <first>, SSE: <second>`.
   */
  static async open(init: ConnectionInit): Promise<McpConnection> {
    const failures: string[] = [];
    for (const kind of transportKinds(init.config)) {
      const client = new Client(init.clientInfo, {
        capabilities: { elicitation: {} },
        // Output schemas come from the server: never run their regexes on the backtracking engine, never keep
        // every listing's compiled schemas (see LinearJsonSchemaValidator).
        jsonSchemaValidator: new LinearJsonSchemaValidator(),
      });
      const connection = new McpConnection(init, client, kind);
      const transport = createTransport(kind, init.config, {
        onStderr: (chunk) => connection.onStderr(chunk),
        onOversize: (bytes) => connection.onOversize(bytes),
      });
      connection.install();
      try {
        await client.connect(transport, { timeout: init.connectTimeoutMs });
        connection.ready = true;
        return connection;
      } catch (error) {
        connection.closedFlag = true;
        await client.close().catch(() => {});
        const tail = connection.stderrTail.trim();
        failures.push(describeError(error) + (tail ? ` (stderr: ${tail.slice(-500)})` : ''));
      }
    }
    const [first = 'unknown error', second] = failures.map((text) => init.redactor.text(text));
    const message =
      second === undefined
        ? `MCP connection failed: ${first}`
        : `MCP connection failed with both transports: ${first}, SSE: ${second}`;
    throw new McpServerError({
      serverName: init.serverName,
      reason: 'connect-failed',
      message: `${message} (server '${init.serverName}')`,
    });
  }

  /**
   * Lists the server's tools, following pagination: at most `maxTools` entries are kept, the rest of each page
   * is only counted (`omitted`), so a listing of 50,000 tools costs no more downstream than one of `maxTools`.
   */
  async listTools(options: {
    signal?: AbortSignal;
    timeoutMs: number;
    maxTools: number;
  }): Promise<{ tools: SdkTool[]; omitted: number }> {
    const slot: CallSlot = { signal: options.signal ?? new AbortController().signal };
    this.active.add(slot);
    try {
      const tools: SdkTool[] = [];
      let omitted = 0;
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES && tools.length < options.maxTools; page++) {
        const result = await this.client.listTools(cursor ? { cursor } : undefined, {
          signal: options.signal,
          timeout: options.timeoutMs,
        });
        const room = options.maxTools - tools.length;
        tools.push(...result.tools.slice(0, room));
        omitted += Math.max(0, result.tools.length - room);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return { tools, omitted };
    } catch (error) {
      throw this.failure(error, { requestSent: true, idempotent: true, signal: options.signal });
    } finally {
      this.active.delete(slot);
      this.lastUsedAt = Date.now();
    }
  }

  /**
   * Calls a tool. The request timeout is ours (see {@link PausableDeadline}); the caller's `signal` cancels the
   * request (the SDK sends `notifications/cancelled`) and its reason is rethrown unchanged, so a Temporal
   * cancellation stays a cancellation. Other failures are {@link McpServerError}s.
   */
  async callTool(
    toolName: string,
    args: Record<string, unknown>,
    options: ConnectionCallOptions & { idempotent?: boolean },
  ): Promise<CallToolResult> {
    const controller = new AbortController();
    const forward = (): void => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) throw abortReason(options.signal);
    options.signal?.addEventListener('abort', forward, { once: true });
    const deadline = new PausableDeadline(options.timeoutMs, () =>
      controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out')),
    );
    const slot: CallSlot = { onElicitation: options.onElicitation, deadline, signal: controller.signal };
    this.active.add(slot);
    try {
      return (await this.client.callTool({ name: toolName, arguments: args }, undefined, {
        signal: controller.signal,
        timeout: MAX_TIMER_MS,
        onprogress: (progress) => {
          if (options.resetTimeoutOnProgress) deadline.restart();
          try {
            options.onProgress?.({
              progress: progress.progress,
              ...(progress.total !== undefined ? { total: progress.total } : {}),
              ...(progress.message !== undefined ? { message: this.init.redactor.text(progress.message) } : {}),
            });
          } catch (error) {
            getGlobalLogger().warn(`MCP progress handler failed for tool '${toolName}': ${describeError(error)}`);
          }
        },
      })) as CallToolResult;
    } catch (error) {
      if (options.signal?.aborted) throw abortReason(options.signal);
      if (deadline.expired) {
        throw new McpServerError({
          serverName: this.init.serverName,
          toolName,
          reason: 'timeout',
          requestSent: true,
          idempotent: options.idempotent,
          message:
            `MCP tool '${toolName}' on server '${this.init.serverName}' did not answer within ` +
            `${options.timeoutMs} ms (time waiting for elicitation answers not counted); the request was cancelled.`,
        });
      }
      throw this.failure(error, { requestSent: true, idempotent: options.idempotent, toolName });
    } finally {
      deadline.cancel();
      options.signal?.removeEventListener('abort', forward);
      this.active.delete(slot);
      this.lastUsedAt = Date.now();
    }
  }

  /** Closes the connection (ends a stdio server process, deletes an HTTP session). Never throws. */
  async close(): Promise<void> {
    if (this.closedFlag) return;
    this.markClosed();
    await this.client.close().catch(() => {});
  }

  private install(): void {
    this.client.onclose = () => this.markClosed();
    this.client.onerror = (error) => this.onTransportError(error);
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.init.onListChanged());
    this.client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      this.answerElicitation(request.params, extra.signal),
    );
  }

  private markClosed(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.init.onClosed(this);
  }

  /** The server sent a message over the size bound: the connection cannot be trusted to stay in sync; close it. */
  private onOversize(bytes: number): void {
    this.oversizeBytes = bytes;
    getGlobalLogger().error(
      `MCP server '${this.init.serverName}' sent a message of more than ${MAX_SERVER_MESSAGE_BYTES} bytes; closing its connection.`,
    );
    void this.close();
  }

  private onStderr(chunk: string): void {
    this.stderrTail = (chunk.length >= STDERR_TAIL_CHARS ? chunk : this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
    // A chatty server writes megabytes: redact and format only what will be logged (the tail is redacted on use).
    const logger = getGlobalLogger();
    if (logger.isLevelEnabled?.('debug') === false) return;
    logger.debug(`MCP server '${this.init.serverName}' stderr: ${this.init.redactor.text(chunk.trimEnd())}`);
  }

  /**
   * Transport errors are often harmless (an optional SSE stream refused), but over HTTP they are also the only
   * sign that the server died while a call waits for its answer. So an error on a busy HTTP connection triggers
   * a ping; if the ping fails too, the connection is closed, which fails the waiting calls at once instead of
   * leaving them to their timeout.
   */
  private onTransportError(error: Error): void {
    getGlobalLogger().debug(
      `MCP transport error on server '${this.init.serverName}': ${this.init.redactor.text(describeError(error))}`,
    );
    // The stdio transport refuses a line over its buffer size and closes; remember why for the waiting calls.
    if (/ReadBuffer exceeded maximum size/.test(error.message)) this.oversizeBytes ??= MAX_SERVER_MESSAGE_BYTES + 1;
    // Before the handshake completes, errors are the connect attempt's own and are reported by open().
    if (this.transport === 'stdio' || !this.ready || this.closedFlag || this.probing) return;
    this.probing = true;
    this.client
      .ping({ timeout: PROBE_TIMEOUT_MS })
      .catch(async () => {
        getGlobalLogger().warn(`MCP server '${this.init.serverName}' stopped answering; closing its connection.`);
        await this.close();
      })
      .finally(() => {
        this.probing = false;
      });
  }

  /**
   * Routes a server's elicitation to the call that caused it. MCP does not say which request an elicitation
   * belongs to, so it is only routed when exactly one call is running here — which the pool guarantees for
   * calls that bring a handler (they hold the connection exclusively). Otherwise it is cancelled with a warning.
   * The call's timeout clock stops while the handler runs. An answer that does not match the requested schema is
   * replaced by `cancel` (logged), never forwarded.
   */
  private async answerElicitation(params: Record<string, unknown>, serverSignal: AbortSignal): Promise<ElicitResult> {
    const logger = getGlobalLogger();
    const server = this.init.serverName;
    const request = normalizeElicitationRequest(server, params, this.init.redactor);
    if (typeof request === 'string') {
      logger.warn(`Elicitation from MCP server '${server}' cancelled: ${request}`);
      return CANCEL;
    }
    const slots = [...this.active];
    const slot = slots.length === 1 ? slots[0] : undefined;
    if (!slot?.onElicitation) {
      logger.warn(
        slots.length > 1
          ? `Elicitation from MCP server '${server}' cancelled: several calls share the connection, so it cannot ` +
              `be routed to the one that asked (pass onElicitation to give a call its own connection).`
          : 'No user input handler registered, cancelling request',
      );
      return CANCEL;
    }
    const signal = AbortSignal.any([serverSignal, slot.signal]);
    slot.deadline?.pause();
    try {
      const answer = await slot.onElicitation(request, { signal });
      const check = validateElicitationAnswer(request.requestedSchema, answer);
      if (!check.ok) {
        logger.error(
          `Elicitation answer for MCP server '${server}' rejected, sending 'cancel' instead: ${check.problem}`,
        );
        return CANCEL;
      }
      return check.answer as ElicitResult;
    } catch (error) {
      logger.error('Error processing user input request', { server, error: describeError(error) });
      return CANCEL;
    } finally {
      slot.deadline?.resume();
    }
  }

  /** Classifies an SDK or transport failure; closes the connection when it is broken. */
  private failure(
    error: unknown,
    context: { requestSent: boolean; idempotent?: boolean; toolName?: string; signal?: AbortSignal },
  ): unknown {
    if (context.signal?.aborted) return abortReason(context.signal);
    if (error instanceof McpServerError) return error;
    const classified = classifyConnectionFailure(error, {
      ...context,
      serverName: this.init.serverName,
      redactor: this.init.redactor,
      stderrTail: this.stderrTail,
      oversized: this.oversizeBytes !== undefined,
    });
    if (classified.broken) void this.close();
    return classified.error;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
