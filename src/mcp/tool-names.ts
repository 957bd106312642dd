import { getGlobalLogger } from '../logger.js';
import type { AnyTool } from '../tool/tool.js';
import { mcpToolOrigin } from './tools-from-listing.js';

/** MCP tools that would be offered under the same name. */
export interface McpToolCollision {
  name: string;
  /** `<server>/<tool>` of each tool with that name. */
  tools: string[];
}

/**
 * MCP tools of different servers whose offered names collide (server `docs` tool `admin_delete_all` and server
 * `docs_admin` tool `delete_all` are both `docs_admin_delete_all`) are all left out, with one warning naming
 * them: otherwise whichever came last would silently receive the calls, and the arguments, meant for the other.
 */
export function withoutCollisions(tools: readonly AnyTool[]): { tools: AnyTool[]; collisions: McpToolCollision[] } {
  const byName = new Map<string, AnyTool[]>();
  for (const tool of tools) byName.set(tool.name, [...(byName.get(tool.name) ?? []), tool]);
  const collisions: McpToolCollision[] = [];
  for (const [name, group] of byName) {
    if (group.length < 2) continue;
    const origins = group.map((tool) => {
      const origin = mcpToolOrigin(tool);
      return origin ? `${origin.serverName}/${origin.toolName}` : name;
    });
    collisions.push({ name, tools: origins });
  }
  if (collisions.length === 0) return { tools: [...tools], collisions };
  getGlobalLogger().warn(
    `MCP tools left out because their names collide: ${collisions
      .map((c) => `'${c.name}' (${c.tools.join(', ')})`)
      .join('; ')}. Rename a server so its tools' <server>_<tool> names differ.`,
  );
  const dropped = new Set(collisions.map((c) => c.name));
  return { tools: tools.filter((tool) => !dropped.has(tool.name)), collisions };
}
