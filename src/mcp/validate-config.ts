import { MCPConfigurationError } from './errors/mcp-configuration-error.js';
import type { MCPServerConfig } from './types.js';

const SUPPORTED = new Set(['stdio', 'http', 'sse', 'streamable-http']);

/**
 * Throws {@link MCPConfigurationError} for a configuration that cannot work: `Unsupported server configuration
 * type: <type>` (VoltAgent's message; `unknown` when there is no type), a stdio server without `command`, or an
 * HTTP server without a valid `url`. Messages never echo values (a URL may hold a token).
 */
export function assertSupportedConfig(config: MCPServerConfig, serverName?: string): void {
  const type = (config as { type?: unknown } | undefined)?.type;
  const where = serverName ? ` (server '${serverName}')` : '';
  if (typeof type !== 'string' || !SUPPORTED.has(type)) {
    throw new MCPConfigurationError(
      `Unsupported server configuration type: ${typeof type === 'string' ? type : 'unknown'}${where}. ` +
        `Use 'stdio', 'http', 'sse' or 'streamable-http'.`,
    );
  }
  if (config.type === 'stdio') {
    if (typeof config.command !== 'string' || !config.command) {
      throw new MCPConfigurationError(`MCP stdio server configuration needs a 'command'${where}.`);
    }
    return;
  }
  try {
    new URL(config.url);
  } catch {
    throw new MCPConfigurationError(`MCP ${config.type} server configuration needs a valid absolute 'url'${where}.`);
  }
}
