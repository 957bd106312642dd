const MARKER = Symbol.for('durable-agent.error.MCPConfigurationError');

/**
 * An MCP server configuration that cannot work (unsupported `type`, missing `command` or `url`), thrown when the
 * configuration is built so the mistake shows at startup, not at the first call.
 */
export class MCPConfigurationError extends Error {
  // A registry-wide symbol rather than `instanceof`: two copies of this package still recognise each other's errors.
  private readonly [MARKER] = true;

  constructor(message: string) {
    super(message);
    this.name = 'MCPConfigurationError';
  }
}

/** True for an {@link MCPConfigurationError} from any copy of this package or realm. */
export function isMCPConfigurationError(value: unknown): value is MCPConfigurationError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
