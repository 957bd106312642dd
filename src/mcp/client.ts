import { EventEmitter } from 'node:events';
import type { AnyTool, ToolExecuteOptions } from '../tool/tool.js';
import type { MCPAuthorizationConfig } from './authorization.js';
import type { McpCallOutcome } from './call-result.js';
import { McpConnectionPool, type McpServerTarget } from './connection-pool.js';
import type { McpElicitationHandler } from './elicitation.js';
import type { McpServerListing, McpToolDefinition } from './listing.js';
import { callServerTool, listServerTools, type McpCallToolOptions } from './server-operations.js';
import { mcpToolsFromListing, type McpToolCaller } from './tools-from-listing.js';
import type { MCPAuthContext, MCPServerConfig } from './types.js';
import { UserInputBridge, type UserInputHandler } from './user-input-bridge.js';
import { assertSupportedConfig } from './validate-config.js';

/** Options of {@link MCPClient}. */
export interface MCPClientConfig {
  /** `name` is the server's name here: tools are called `<name>_<tool>`. */
  clientInfo: { name: string; version: string };
  server: MCPServerConfig;
  /** Request timeout in ms; overrides `server.timeout`. Default 60000. */
  timeout?: number;
  /** Accepted for VoltAgent compatibility and ignored: the client always offers form-mode elicitation only. */
  capabilities?: Record<string, unknown>;
  /** Installs `onRequest` as the bridge's handler. */
  elicitation?: { onRequest: UserInputHandler };
  /** Connections come from this pool (a worker's) instead of a private one. */
  pool?: McpConnectionPool;
  /** Authorization applied to this server's tools (normally set by {@link MCPConfiguration}). */
  authorization?: MCPAuthorizationConfig;
}

/** Events of an {@link MCPClient}. `error` is emitted only when someone listens (never an uncaught throw). */
export interface MCPClientEvents {
  connect: [];
  disconnect: [];
  error: [Error];
  toolCall: [name: string, args: Record<string, unknown>, outcome: McpCallOutcome];
}

/** Execute options may carry a per-call elicitation handler (VoltAgent's `elicitation` call option). */
type WithElicitation = ToolExecuteOptions & { elicitation?: McpElicitationHandler };

/**
 * One MCP server, VoltAgent-style: `connect`, `disconnect`, `listTools`, `getAgentTools`, `callTool`, events, and
 * `elicitation` (a {@link UserInputBridge}). Connections come from a {@link McpConnectionPool}, so concurrent
 * calls share one connection, and a call with its own elicitation handler gets its own connection (no handler
 * swapping between concurrent calls, unlike VoltAgent).
 */
export class MCPClient extends EventEmitter<MCPClientEvents> {
  /** Answers the server's elicitations for calls that bring no handler of their own. */
  readonly elicitation = new UserInputBridge();
  readonly serverName: string;
  private readonly target: McpServerTarget;
  private readonly pool: McpConnectionPool;
  private readonly ownsPool: boolean;
  private readonly authorization?: MCPAuthorizationConfig;

  constructor(config: MCPClientConfig) {
    super();
    assertSupportedConfig(config.server);
    this.serverName = config.clientInfo.name;
    const server = config.timeout !== undefined ? { ...config.server, timeout: config.timeout } : config.server;
    this.target = { serverName: this.serverName, config: server };
    this.ownsPool = config.pool === undefined;
    this.pool = config.pool ?? new McpConnectionPool();
    this.authorization = config.authorization;
    if (config.elicitation?.onRequest) this.elicitation.setHandler(config.elicitation.onRequest);
  }

  /** Opens (or checks out) a connection. Throws a classified `McpServerError` when the server is unreachable. */
  async connect(): Promise<void> {
    try {
      await this.pool.use(this.target, {}, async () => {});
      this.emit('connect');
    } catch (error) {
      this.emitError(error);
      throw error;
    }
  }

  /**
   * Closes this server's connections when the client owns its pool. With a worker's pool it only emits
   * `disconnect`: the pool's owner closes shared connections.
   */
  async disconnect(): Promise<void> {
    if (this.ownsPool) await this.pool.closeServer(this.target);
    this.emit('disconnect');
  }

  /** The server's tools by name (`{ name, description, inputSchema }`, bounded and redacted). */
  async listTools(): Promise<
    Record<string, { name: string; description: string; inputSchema: McpToolDefinition['inputSchema'] }>
  > {
    const listing = await this.listing();
    return Object.fromEntries(
      listing.tools.map((tool) => [
        tool.name,
        { name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema },
      ]),
    );
  }

  /** The listing, filtered for `authContext` when the authorization says `filterOnDiscovery`. */
  async listing(authContext: MCPAuthContext = {}): Promise<McpServerListing> {
    try {
      return await listServerTools(this.pool, this.target, { ...authContext, authorization: this.authorization });
    } catch (error) {
      this.emitError(error);
      throw error;
    }
  }

  /** The server's tools as agent tools, keyed by their `<server>_<tool>` names. */
  async getAgentTools(authContext: MCPAuthContext = {}): Promise<Record<string, AnyTool>> {
    const tools = this.toolsFromListing(await this.listing(authContext));
    return Object.fromEntries(tools.map((tool) => [tool.name, tool]));
  }

  /** Tools built from a listing (live or recorded) that call this server with each call's own options. */
  toolsFromListing(listing: McpServerListing | readonly McpToolDefinition[]): AnyTool[] {
    const caller: McpToolCaller = (definition, args, options: WithElicitation) =>
      this.callTool(
        { name: definition.name, arguments: args },
        {
          signal: options.abortSignal,
          userId: options.userId,
          context: options.context,
          onElicitation: options.elicitation ?? this.bridgeHandler(),
          idempotent: definition.annotations?.readOnlyHint === true || definition.annotations?.idempotentHint === true,
        },
      );
    return mcpToolsFromListing(this.serverName, listing, caller);
  }

  /**
   * Calls a tool and returns its normalized outcome (`{ kind: 'ok', output }` or `{ kind: 'tool-error', … }`).
   * The execution check (`checkOnExecution`, default true) sees `options.userId`/`options.context`. Without
   * `onElicitation`, the bridge answers when it has a handler.
   */
  async callTool(
    call: { name: string; arguments?: Record<string, unknown> },
    options: Omit<McpCallToolOptions, 'authorization'> = {},
  ): Promise<McpCallOutcome> {
    const args = call.arguments ?? {};
    try {
      const outcome = await callServerTool(this.pool, this.target, call.name, args, {
        ...options,
        onElicitation: options.onElicitation ?? this.bridgeHandler(),
        authorization: this.authorization,
      });
      this.emit('toolCall', call.name, args, outcome);
      return outcome;
    } catch (error) {
      this.emitError(error);
      throw error;
    }
  }

  private bridgeHandler(): McpElicitationHandler | undefined {
    if (!this.elicitation.hasHandler) return undefined;
    return (request, context) => this.elicitation.processRequest(request, context);
  }

  private emitError(error: unknown): void {
    if (this.listenerCount('error') > 0) this.emit('error', error instanceof Error ? error : new Error(String(error)));
  }
}
