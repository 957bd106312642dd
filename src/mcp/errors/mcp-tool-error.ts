import { DurableAgentError } from '../../errors/durable-agent-error.js';
import type { JsonValue } from '../../protocol/json.js';

const MARKER = Symbol.for('durable-agent.error.McpToolError');

/**
 * A remote MCP tool answered with `isError: true`. The library throws it from the tool's `execute`, so the
 * agent's pipeline gives the model an error result (never a success, as VoltAgent does). The message is the
 * text the server sent; `content` keeps the whole (bounded, secret-free) content for the model and hooks.
 */
export class McpToolError extends DurableAgentError {
  private readonly [MARKER] = true;
  readonly serverName: string;
  /** The tool's own name on its server. */
  readonly toolName: string;
  /** The remote result's content items as JSON data. */
  readonly content: JsonValue[];

  constructor({
    serverName,
    toolName,
    message,
    content,
  }: {
    serverName: string;
    toolName: string;
    message: string;
    content: JsonValue[];
  }) {
    super({
      code: 'Mcp.ToolError',
      message: message || `Remote tool '${toolName}' on server '${serverName}' reported an error without a message.`,
    });
    this.name = 'McpToolError';
    this.serverName = serverName;
    this.toolName = toolName;
    this.content = content;
  }

  /** True for a {@link McpToolError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is McpToolError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
