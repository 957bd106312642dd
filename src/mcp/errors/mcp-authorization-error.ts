import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.MCPAuthorizationError');

/**
 * An MCP tool call (or listing) refused by the configuration's `authorization.can`. Inside an agent it reaches
 * the model as a tool error, and the run goes on. The message is VoltAgent's:
 * `Authorization denied for tool '<tool>' on server '<server>'[: <reason>]`.
 */
export class MCPAuthorizationError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** The tool's own name on its server (without the `<server>_` prefix). */
  readonly toolName: string;
  readonly serverName: string;
  /** Why `can` refused, when it said. */
  readonly reason?: string;

  constructor(toolName: string, serverName: string, reason?: string) {
    super({
      code: 'Mcp.AuthorizationDenied',
      message: `Authorization denied for tool '${toolName}' on server '${serverName}'${reason ? `: ${reason}` : ''}`,
    });
    this.name = 'MCPAuthorizationError';
    this.toolName = toolName;
    this.serverName = serverName;
    if (reason !== undefined) this.reason = reason;
  }

  /** True for a {@link MCPAuthorizationError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is MCPAuthorizationError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
