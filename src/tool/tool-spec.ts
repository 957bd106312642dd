import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { JSONSchema7 } from 'ai';
import type { ToolSpec } from '../models/call-model.js';
import type { RegisteredTool } from './normalize-tool.js';
import { isProviderTool } from './provider-tool.js';
import { toJsonSchema } from './schema.js';

/**
 * The model-facing spec of one registered tool: ours as a JSON-Schema function definition (no execute — the
 * runtime executes calls itself), provider tools as the provider's own object.
 */
export function toolModelSpec(tool: RegisteredTool): ToolSpec {
  if (isProviderTool(tool)) return { kind: 'provider', name: tool.name, providerTool: tool };
  return {
    kind: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: toJsonSchema(tool.parameters, 'input') as JSONSchema7,
    ...(tool.providerOptions ? { providerOptions: tool.providerOptions as SharedV4ProviderOptions } : {}),
  };
}
