import type { JSONSchema7 } from 'ai';
import type { RegisteredTool } from './normalize-tool.js';
import { isProviderTool, type ProviderTool } from './provider-tool.js';
import { toJsonSchema } from './schema.js';

/**
 * A tool as offered to the model for one call: our tools as a JSON-Schema function definition (no execute — the
 * runtime executes calls itself), provider tools as the provider's own object.
 */
export type ToolModelSpec =
  | { kind?: 'function'; name: string; description?: string; inputSchema: JSONSchema7 }
  | { kind: 'provider'; name: string; providerTool: ProviderTool };

/** The model-facing spec of one registered tool. */
export function toolModelSpec(tool: RegisteredTool): ToolModelSpec {
  if (isProviderTool(tool)) return { kind: 'provider', name: tool.name, providerTool: tool };
  return {
    kind: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: toJsonSchema(tool.parameters, 'input') as JSONSchema7,
  };
}
