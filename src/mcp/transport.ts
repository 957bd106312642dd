import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { boundedFetch } from './bounded-fetch.js';
import { GroupStdioTransport } from './stdio-transport.js';
import type { MCPServerConfig, MCPTransportKind } from './types.js';

/**
 * Largest message a server may send, in bytes (a stdio line, an HTTP JSON body, one SSE event). Tool results are
 * bounded again, much lower, after parsing; this only stops a runaway server from filling the worker's memory.
 */
export const MAX_SERVER_MESSAGE_BYTES = 8 * 1024 * 1024;

/** The transports a configuration is tried with, in order (`http`: Streamable HTTP, then SSE). */
export function transportKinds(config: MCPServerConfig): MCPTransportKind[] {
  return config.type === 'http' ? ['streamable-http', 'sse'] : [config.type];
}

/**
 * Builds an MCP SDK transport of `kind` for a configuration. For stdio the server's stderr is piped to
 * `onStderr` (the worker's own stderr would otherwise receive whatever the server prints, secrets included).
 * Over HTTP, `onOversize` reports a message over {@link MAX_SERVER_MESSAGE_BYTES}.
 */
export function createTransport(
  kind: MCPTransportKind,
  config: MCPServerConfig,
  hooks: { onStderr: (chunk: string) => void; onOversize: (bytes: number) => void },
): Transport {
  if (kind === 'stdio') {
    if (config.type !== 'stdio') throw new Error(`stdio transport for a '${config.type}' configuration`);
    // Each server in its own process group, ended whole on close (see GroupStdioTransport).
    const transport = new GroupStdioTransport({
      command: config.command,
      args: config.args ?? [],
      env: config.env,
      cwd: config.cwd,
      maxBufferSize: MAX_SERVER_MESSAGE_BYTES,
      onStderr: hooks.onStderr,
    });
    return transport;
  }
  if (config.type === 'stdio') throw new Error(`${kind} transport for a stdio configuration`);
  const url = new URL(config.url);
  const fetch = boundedFetch(MAX_SERVER_MESSAGE_BYTES, hooks.onOversize);
  if (kind === 'streamable-http') {
    return new StreamableHTTPClientTransport(url, {
      fetch,
      requestInit: config.requestInit,
      sessionId: config.type === 'streamable-http' ? config.sessionId : undefined,
      // Few, quick stream resumptions: a dead server must surface as a failed call, not minutes of retries.
      reconnectionOptions: {
        initialReconnectionDelay: 250,
        maxReconnectionDelay: 2000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    });
  }
  return new SSEClientTransport(url, {
    fetch,
    requestInit: config.requestInit,
    eventSourceInit: config.type === 'streamable-http' ? undefined : config.eventSourceInit,
  });
}
