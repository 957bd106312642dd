import { isProviderTool } from '../tool/provider-tool.js';
import type { RegisteredTool } from '../tool/normalize-tool.js';
import { toJsonSchema } from '../tool/schema.js';
import type { AnyTool } from '../tool/tool.js';
import type { ToolSearchCandidate } from './types.js';

// Converting a schema to JSON Schema costs tens of microseconds; over a 1,000-tool pool that would dominate a
// search. Tools are immutable once created, so each is described once per worker.
const described = new WeakMap<AnyTool, ToolSearchCandidate>();

/** The search view of one tool (memoized per tool object). */
export function toSearchCandidate(tool: AnyTool): ToolSearchCandidate {
  let candidate = described.get(tool);
  if (!candidate) {
    candidate = {
      name: tool.name,
      description: tool.description,
      tags: Array.isArray(tool.tags) ? tool.tags.filter((tag): tag is string => typeof tag === 'string') : [],
      parametersSchema: toJsonSchema(tool.parameters, 'input'),
      ...(tool.outputSchema ? { outputSchema: toJsonSchema(tool.outputSchema, 'output') } : {}),
      tool,
    };
    described.set(tool, candidate);
  }
  return candidate;
}

/**
 * True for a pool tool that `callTool` can run: one of our tools with an `execute`. Client-side tools (their
 * result comes from the caller) and provider tools (the provider runs them inside a model call) are never
 * search results.
 */
export function isCallableTool(tool: RegisteredTool): tool is AnyTool {
  return !isProviderTool(tool) && !tool.isClientSide();
}

/** The search candidates of a pool, sorted by name so every worker ranks (and batches) them in the same order. */
export function searchCandidates(pool: readonly RegisteredTool[]): ToolSearchCandidate[] {
  return pool
    .filter(isCallableTool)
    .map(toSearchCandidate)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
