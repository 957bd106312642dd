import type { SSEClientTransportOptions } from '@modelcontextprotocol/sdk/client/sse.js';

/** Fields every server configuration may carry. */
export interface MCPServerConfigBase {
  /**
   * Default MCP request timeout of a tool call in milliseconds (default 60000, the MCP SDK's). In a durable run
   * the activity passes its own `timeoutMs`, kept below the activity's start-to-close timeout.
   */
  timeout?: number;
  /**
   * More strings to keep out of everything the library returns, logs or throws, besides the secrets it finds in
   * the configuration by itself (header values, environment values, URL credentials and token-like arguments).
   */
  redact?: string[];
}

/** A local server started as a child process, spoken to over its stdin/stdout. */
export interface StdioServerConfig extends MCPServerConfigBase {
  type: 'stdio';
  command: string;
  /** Default `[]`. */
  args?: string[];
  /** Merged over the SDK's safe default environment (HOME, PATH, …); the worker's own environment is not passed. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A remote server: Streamable HTTP first, then the legacy HTTP+SSE transport when that fails. */
export interface HttpServerConfig extends MCPServerConfigBase {
  type: 'http';
  url: string | URL;
  requestInit?: RequestInit;
  eventSourceInit?: SSEClientTransportOptions['eventSourceInit'];
}

/** A remote server over the legacy HTTP+SSE transport only. */
export interface SSEServerConfig extends MCPServerConfigBase {
  type: 'sse';
  url: string | URL;
  requestInit?: RequestInit;
  eventSourceInit?: SSEClientTransportOptions['eventSourceInit'];
}

/** A remote server over Streamable HTTP only (no fallback). */
export interface StreamableHTTPServerConfig extends MCPServerConfigBase {
  type: 'streamable-http';
  url: string | URL;
  requestInit?: RequestInit;
  /** Resume an existing session instead of starting a new one. */
  sessionId?: string;
}

/** How to reach one MCP server. Secrets in it stay on the worker: nothing returned or thrown contains them. */
export type MCPServerConfig = StdioServerConfig | HttpServerConfig | SSEServerConfig | StreamableHTTPServerConfig;

/** The transport a connection ended up using (`http` resolves to one of the two HTTP ones). */
export type MCPTransportKind = 'stdio' | 'streamable-http' | 'sse';

/** Who is asking, for authorization: the run's (or the caller's) user and context. */
export interface MCPAuthContext {
  userId?: string;
  context?: Map<string, unknown> | Record<string, unknown>;
}
