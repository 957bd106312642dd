import { z } from 'zod';
import { MAX_TOOL_NAME_LENGTH, MAX_TOOL_SEARCH_QUERY_LENGTH } from './constants.js';

/** Description of `searchTools` (VoltAgent's wording). */
export const SEARCH_TOOLS_DESCRIPTION =
  'Search available tools and inspect their schemas. Always call this before callTool when tool routing is enabled.';

/** Description of `callTool` (VoltAgent's wording). */
export const CALL_TOOL_DESCRIPTION =
  'Call a tool by name with validated arguments. Always call searchTools first and follow the returned schema.';

/**
 * Arguments of `searchTools`. The query is bounded (it is model output); `topK` must be a positive integer, and
 * values above the cap are lowered to it rather than refused.
 */
export const searchToolsParameters = z.object({
  query: z
    .string()
    .trim()
    .min(1, 'query must describe the tool you need, e.g. "convert currency"')
    .max(MAX_TOOL_SEARCH_QUERY_LENGTH)
    .describe('What you want to do, in a few words (e.g. "book a flight", "convert EUR to USD").'),
  topK: z.number().int().min(1).optional().describe('How many tools to return (default set by the agent).'),
});

/**
 * Arguments of `callTool`. `args` may be an object, a JSON string of one (models send both), null or absent;
 * the target's own schema validates it.
 */
export const callToolParameters = z.object({
  name: z.string().min(1).max(MAX_TOOL_NAME_LENGTH).describe('Exact name of a tool returned by searchTools.'),
  args: z
    .union([z.record(z.string(), z.unknown()), z.string(), z.null()])
    .optional()
    .describe("Arguments matching the tool's parametersSchema from searchTools."),
});
