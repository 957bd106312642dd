import type { McpListingRecord, McpToolCollision } from '../src/protocol/index.js';

/** Most collisions one `mcp-tools-collided` event names (a hostile server could make thousands). */
export const MAX_COLLISIONS_PER_EVENT = 20;
/** Most `<server>/<tool>` entries shown per collision. */
const MAX_TOOLS_PER_COLLISION = 5;

/**
 * Tools of the listings in effect whose `<server>_<tool>` names are equal, so the worker refuses them all (see
 * `withoutCollisions` in `src/mcp/tool-names.ts`, which also catches rarer clashes of the provider-safe stand-ins
 * and logs them). Pure and computed from recorded listings only, so replay derives the same collisions. Names in
 * `known` were reported before and are left out.
 */
export function newCollisions(
  listings: Iterable<McpListingRecord>,
  known: ReadonlySet<string>,
): { collisions: McpToolCollision[]; more: number } {
  const byName = new Map<string, string[]>();
  for (const listing of listings) {
    for (const tool of listing.tools) {
      const name = `${listing.server}_${tool.name}`;
      const origins = byName.get(name) ?? [];
      origins.push(`${listing.server}/${tool.name}`);
      byName.set(name, origins);
    }
  }
  const all: McpToolCollision[] = [];
  for (const [name, tools] of byName) {
    if (tools.length < 2 || known.has(name)) continue;
    all.push({ name, tools: tools.slice(0, MAX_TOOLS_PER_COLLISION) });
  }
  return {
    collisions: all.slice(0, MAX_COLLISIONS_PER_EVENT),
    more: Math.max(0, all.length - MAX_COLLISIONS_PER_EVENT),
  };
}
