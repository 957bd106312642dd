import { defaultModelOutput } from '../protocol/messages.js';
import { toJsonValue } from './json-safe.js';
import type { ToolErrorResult } from './error-result.js';
import type { AnyTool, ToolResultOutput } from './tool.js';

/**
 * What the model sees for a successful result: the tool's `toModelOutput` when it has one, else strings as
 * `text` and everything else as `json` (undefined becomes null).
 */
export async function encodeToolOutput(
  tool: AnyTool,
  output: unknown,
  input: unknown,
  toolCallId: string,
): Promise<ToolResultOutput> {
  if (tool.toModelOutput) return await tool.toModelOutput({ output, input, toolCallId });
  return encodeDefault(output);
}

/** The default encoding: strings as `text`, everything else as `json` data (undefined becomes null). */
export function encodeDefault(output: unknown): ToolResultOutput {
  return defaultModelOutput(typeof output === 'string' ? output : (toJsonValue(output) ?? null));
}

/** What the model sees for a failed call: the error payload as JSON, bypassing `toModelOutput` (which expects a result). */
export function encodeToolError(result: ToolErrorResult): ToolResultOutput {
  return { type: 'json', value: result };
}
