import { durationToMs } from '../duration.js';
import { getGlobalLogger } from '../logger.js';
import type { AnyTool } from '../tool/tool.js';
import type { MCPAuthorizationConfig } from './authorization.js';
import type { McpCallOutcome } from './call-result.js';
import { MCPClient } from './client.js';
import { withoutCollisions } from './tool-names.js';
import { McpConnectionPool, type McpConnectionPoolOptions, type McpServerTarget } from './connection-pool.js';
import { describeError } from './describe-error.js';
import { McpServerError, type McpFailureReason } from './errors/mcp-server-error.js';
import type { McpListingLimits, McpServerListing, McpToolDefinition } from './listing.js';
import {
  callServerTool,
  listServerTools,
  type McpCallToolOptions,
  type McpListToolsOptions,
} from './server-operations.js';
import type { MCPAuthContext, MCPServerConfig } from './types.js';
import { assertSupportedConfig } from './validate-config.js';

/** Options of {@link MCPConfiguration}. */
export interface MCPConfigurationOptions<K extends string = string> {
  servers: Record<K, MCPServerConfig>;
  authorization?: MCPAuthorizationConfig;
  /** A worker's shared pool. Without it the configuration makes its own (closed by `disconnect()`). */
  pool?: McpConnectionPool;
  /** Options of the configuration's own pool (ignored when `pool` is given). */
  poolOptions?: McpConnectionPoolOptions;
  /** Bounds on listings. */
  listingLimits?: Partial<McpListingLimits>;
  /**
   * How long a durable run's first model call waits for the servers' listings: ms, or a duration such as `'10s'`
   * (default 5 s, `MCP_LIST_BUDGET_MS`). A server still listing then is late: the run goes on without its tools
   * and offers them from the next model call after its listing arrives.
   */
  listBudget?: string | number;
}

/** A server that could not be listed, as plain JSON (no secrets): for logs and run events. */
export interface McpServerFailure {
  serverName: string;
  reason: McpFailureReason | 'unknown';
  message: string;
}

/** A server's tools grouped VoltAgent-style: each tool under its name, plus `getTools()`. */
export type MCPToolset = Record<string, AnyTool> & { getTools(): AnyTool[] };

/** A pool to use instead of the configuration's own (the durable runtime passes the worker's). */
export interface WithPool {
  pool?: McpConnectionPool;
}

/**
 * A set of MCP servers and the tools they offer, VoltAgent-compatible (`getTools`, `getToolsets`, `getRawTools`,
 * `getRawToolsets`, `getClient`, `getClients`, `disconnect`), plus the building blocks the durable runtime calls
 * from activities: {@link listServerTools}, {@link callServerTool}, {@link isListingStale}, {@link toolsFromListing}.
 *
 * Servers are reached through a {@link McpConnectionPool}; one failing server never hides the others (it is
 * logged and reported by {@link loadTools}). Authorization applies to every accessor: discovery filtering when
 * `filterOnDiscovery`, and an execution check with each call's own user and context (default on).
 */
export class MCPConfiguration<K extends string = string> {
  private readonly servers: Record<K, MCPServerConfig>;
  private readonly authorization?: MCPAuthorizationConfig;
  private readonly listingLimits?: Partial<McpListingLimits>;
  /** `listBudget` in ms, when set. */
  readonly listBudgetMs?: number;
  private readonly ownPool: boolean;
  private pool: McpConnectionPool;
  private readonly poolOptions?: McpConnectionPoolOptions;
  private readonly clients = new Map<K, MCPClient>();

  /** Throws `Unsupported server configuration type: <type>` (and other configuration errors) at once. */
  constructor(options: MCPConfigurationOptions<K>) {
    for (const [name, config] of Object.entries(options.servers) as Array<[K, MCPServerConfig]>) {
      assertSupportedConfig(config, name);
    }
    this.servers = { ...options.servers };
    this.authorization = options.authorization;
    this.listingLimits = options.listingLimits;
    if (options.listBudget !== undefined) {
      const ms = durationToMs(options.listBudget);
      if (ms < 1)
        throw new Error(`MCPConfiguration listBudget must be at least 1 ms (got ${String(options.listBudget)})`);
      this.listBudgetMs = ms;
    }
    this.ownPool = options.pool === undefined;
    this.poolOptions = options.poolOptions;
    this.pool = options.pool ?? new McpConnectionPool(options.poolOptions);
  }

  /** A server's configured MCP request timeout in ms, if it sets one. */
  timeoutOf(serverName: K): number | undefined {
    return this.target(serverName).config.timeout;
  }

  /** The configured server names, in configuration order. */
  get serverNames(): K[] {
    return Object.keys(this.servers) as K[];
  }

  /** Every server's tools, flattened in server order. Servers that fail are logged and left out. */
  async getTools(authContext?: MCPAuthContext): Promise<AnyTool[]> {
    return (await this.loadTools(authContext)).tools;
  }

  /**
   * Like {@link getTools}, and also says which servers failed and why (plain JSON without secrets), so a caller
   * can show or record it instead of silently missing tools.
   */
  async loadTools(authContext?: MCPAuthContext): Promise<{ tools: AnyTool[]; failures: McpServerFailure[] }> {
    const results = await this.listAll(authContext);
    const tools: AnyTool[] = [];
    const failures: McpServerFailure[] = [];
    for (const result of results) {
      if ('failure' in result) failures.push(result.failure);
      else tools.push(...this.toolsFromListing(result.serverName, result.listing));
    }
    return { tools: withoutCollisions(tools).tools, failures };
  }

  /** Tools grouped by server. Servers that fail or offer no (visible) tools are left out. */
  async getToolsets(authContext?: MCPAuthContext): Promise<Record<K, MCPToolset>> {
    const toolsets = {} as Record<K, MCPToolset>;
    for (const result of await this.listAll(authContext)) {
      if ('failure' in result) continue;
      const tools = this.toolsFromListing(result.serverName, result.listing);
      if (tools.length === 0) continue;
      const toolset = Object.fromEntries(tools.map((tool) => [tool.name, tool])) as MCPToolset;
      Object.defineProperty(toolset, 'getTools', { value: () => [...tools], enumerable: false });
      toolsets[result.serverName] = toolset;
    }
    return toolsets;
  }

  /** Every server's tool definitions keyed `<server>.<tool>`. */
  async getRawTools(authContext?: MCPAuthContext): Promise<Record<string, McpToolDefinition>> {
    const raw: Record<string, McpToolDefinition> = {};
    for (const result of await this.listAll(authContext)) {
      if ('failure' in result) continue;
      for (const tool of result.listing.tools) raw[`${result.serverName}.${tool.name}`] = tool;
    }
    return raw;
  }

  /** Tool definitions grouped by server (failing servers left out). */
  async getRawToolsets(authContext?: MCPAuthContext): Promise<Record<K, Record<string, McpToolDefinition>>> {
    const raw = {} as Record<K, Record<string, McpToolDefinition>>;
    for (const result of await this.listAll(authContext)) {
      if ('failure' in result) continue;
      raw[result.serverName] = Object.fromEntries(result.listing.tools.map((tool) => [tool.name, tool]));
    }
    return raw;
  }

  /**
   * The client of one server, connected; `undefined` (with a log line) for an unknown name or a server that
   * cannot be reached. The same instance is returned on every call.
   */
  async getClient(name: K): Promise<MCPClient | undefined> {
    if (!Object.hasOwn(this.servers, name)) {
      getGlobalLogger().warn(`No configuration found for server: ${name}`);
      return undefined;
    }
    const client = this.clientFor(name);
    try {
      await client.connect();
      return client;
    } catch (error) {
      getGlobalLogger().error(`Connection failure for server ${name}: ${describeError(error)}`);
      return undefined;
    }
  }

  /** The clients of every server that can be reached. */
  async getClients(): Promise<Partial<Record<K, MCPClient>>> {
    const clients: Partial<Record<K, MCPClient>> = {};
    const connected = await Promise.all(
      this.serverNames.map(async (name) => [name, await this.getClient(name)] as const),
    );
    for (const [name, client] of connected) if (client) clients[name] = client;
    return clients;
  }

  /** Closes the connections (of the configuration's own pool; a shared pool is closed by its owner). */
  async disconnect(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    for (const client of clients) client.emit('disconnect');
    if (this.ownPool) {
      const old = this.pool;
      this.pool = new McpConnectionPool(this.poolOptions);
      await old.close();
    }
  }

  /**
   * Durable building block: one server's listing as plain JSON (bounded, redacted, filtered for `userId`/`context`
   * when `filterOnDiscovery`). Throws a classified `McpServerError` (`configuration` for an unknown name).
   */
  async listServerTools(
    serverName: K,
    options: Omit<McpListToolsOptions, 'authorization'> & WithPool = {},
  ): Promise<McpServerListing> {
    return listServerTools(options.pool ?? this.pool, this.target(serverName), {
      ...options,
      limits: { ...this.listingLimits, ...options.limits },
      authorization: this.authorization,
    });
  }

  /**
   * Durable building block: calls `toolName` on a server and returns the outcome as plain JSON. The execution
   * check sees `options.userId`/`options.context` (pass the run's). See {@link McpCallToolOptions} for the
   * signal, the pausable timeout, per-call elicitation and progress.
   */
  async callServerTool(
    serverName: K,
    toolName: string,
    args: Record<string, unknown>,
    options: Omit<McpCallToolOptions, 'authorization'> & WithPool = {},
  ): Promise<McpCallOutcome> {
    return callServerTool(options.pool ?? this.pool, this.target(serverName), toolName, args, {
      ...options,
      authorization: this.authorization,
    });
  }

  /**
   * Durable building block: true when this worker knows that the listing `version` of a server is out of date
   * (a `tools/list_changed` arrived after it, or a newer listing differs). See `McpConnectionPool.isListingStale`.
   */
  isListingStale(serverName: K, version: string, options: WithPool = {}): boolean {
    return (options.pool ?? this.pool).isListingStale(this.target(serverName), version);
  }

  /**
   * Tools rebuilt from a (recorded) listing that call the server in-process through this configuration, with
   * each call's own user, context, abort signal and elicitation handler (`options.elicitation`, else the
   * client's bridge).
   */
  toolsFromListing(serverName: K, listing: McpServerListing | readonly McpToolDefinition[]): AnyTool[] {
    return this.clientFor(serverName).toolsFromListing(listing);
  }

  private async listAll(
    authContext: MCPAuthContext = {},
  ): Promise<Array<{ serverName: K; listing: McpServerListing } | { serverName: K; failure: McpServerFailure }>> {
    return Promise.all(
      this.serverNames.map(async (serverName) => {
        try {
          return { serverName, listing: await this.clientFor(serverName).listing(authContext) };
        } catch (error) {
          const failure: McpServerFailure = {
            serverName,
            reason: McpServerError.isInstance(error) ? error.reason : 'unknown',
            message: describeError(error),
          };
          getGlobalLogger().error(`Error fetching tools from MCP server ${serverName}: ${failure.message}`);
          return { serverName, failure };
        }
      }),
    );
  }

  private clientFor(serverName: K): MCPClient {
    let client = this.clients.get(serverName);
    if (!client) {
      const { config } = this.target(serverName);
      client = new MCPClient({
        clientInfo: { name: serverName, version: '1.0.0' },
        server: config,
        pool: this.pool,
        authorization: this.authorization,
      });
      this.clients.set(serverName, client);
    }
    return client;
  }

  private target(serverName: K): McpServerTarget {
    if (!Object.hasOwn(this.servers, serverName)) {
      throw new McpServerError({
        serverName,
        reason: 'configuration',
        message: `No configuration found for server: ${serverName}. Known servers: ${this.serverNames.join(', ') || '(none)'}.`,
      });
    }
    return { serverName, config: this.servers[serverName] };
  }
}
