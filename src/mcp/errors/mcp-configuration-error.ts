import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.MCPConfigurationError');

/**
 * An MCP server configuration that cannot work (unsupported `type`, missing `command` or `url`), thrown when the
 * configuration is built so the mistake shows at startup, not at the first call.
 */
export class MCPConfigurationError extends DurableAgentError {
  private readonly [MARKER] = true;

  constructor(message: string) {
    super({ code: 'Mcp.Configuration', message });
    this.name = 'MCPConfigurationError';
  }

  /** True for a {@link MCPConfigurationError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is MCPConfigurationError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
