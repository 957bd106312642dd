import { getGlobalLogger } from '../logger.js';
import { createTool, type AnyTool, type ToolExecuteOptions } from '../tool/tool.js';
import type { McpCallOutcome } from './call-result.js';
import { McpToolError } from './errors/mcp-tool-error.js';
import type { McpServerListing, McpToolDefinition } from './listing.js';
import { parametersFromServerSchema } from './parameters-from-schema.js';
import { offeredToolName } from './offered-name.js';

/** Runs one remote tool for a tool built by {@link mcpToolsFromListing}: with the *current* call's options. */
export type McpToolCaller = (
  tool: McpToolDefinition,
  args: Record<string, unknown>,
  options: ToolExecuteOptions,
) => Promise<McpCallOutcome>;

/** Where an MCP-backed tool comes from. */
export interface McpToolOrigin {
  serverName: string;
  /** The tool's own name on the server. */
  toolName: string;
  definition: McpToolDefinition;
}

const origins = new WeakMap<object, McpToolOrigin>();

/** The server and remote tool behind a tool built by {@link mcpToolsFromListing}; undefined for other tools. */
export function mcpToolOrigin(tool: unknown): McpToolOrigin | undefined {
  return typeof tool === 'object' && tool !== null ? origins.get(tool) : undefined;
}

/**
 * Builds our tools from a server's listing, live or recorded (plain JSON, so a durable run can rebuild the same
 * tools from history on any worker). Each tool:
 * - is named `<server>_<tool>`, or a provider-safe stand-in for it ({@link offeredToolName}), described by the server or `Executes the remote tool: <tool>`;
 * - has parameters converted from the JSON Schema by {@link parametersFromServerSchema} (the server's regexes run
 *   only on RE2; a schema that cannot be converted skips only that tool, with an error log naming it);
 * - carries the MCP annotations in `mcp`;
 * - runs through `call` and returns the outcome's `output`; an `isError` outcome throws {@link McpToolError}, so
 *   the agent pipeline gives the model an error result.
 */
export function mcpToolsFromListing(
  serverName: string,
  listing: McpServerListing | readonly McpToolDefinition[],
  call: McpToolCaller,
): AnyTool[] {
  const definitions = Array.isArray(listing) ? listing : (listing as McpServerListing).tools;
  const tools: AnyTool[] = [];
  for (const definition of definitions as readonly McpToolDefinition[]) {
    let parameters;
    try {
      parameters = parametersFromServerSchema(definition.inputSchema);
    } catch (error) {
      getGlobalLogger().error(
        `Failed to create tool wrapper for '${definition.name}' on MCP server '${serverName}': its input schema ` +
          `cannot be converted (${(error as Error)?.message ?? String(error)}). The tool is skipped; the others load.`,
      );
      continue;
    }
    const tool = createTool({
      name: offeredToolName(serverName, definition.name),
      description: definition.description || `Executes the remote tool: ${definition.name}`,
      parameters,
      ...(definition.annotations ? { mcp: { ...definition.annotations } } : {}),
      execute: async (args: unknown, options: ToolExecuteOptions) => {
        const outcome = await call(definition, (args ?? {}) as Record<string, unknown>, options);
        if (outcome.kind === 'tool-error') {
          throw new McpToolError({
            serverName,
            toolName: definition.name,
            message: outcome.message,
            content: outcome.content,
          });
        }
        return outcome.output;
      },
    });
    origins.set(tool, { serverName, toolName: definition.name, definition });
    tools.push(tool);
  }
  return tools;
}
