import { asSchema } from 'ai';
import type { ToolDescriptor } from '../protocol/descriptor.js';
import type { JsonObject } from '../protocol/json.js';
import { toJsonValue } from './json-safe.js';
import type { RegisteredTool } from './normalize-tool.js';
import { isProviderTool, type ProviderTool } from './provider-tool.js';
import { toJsonSchema } from './schema.js';
import type { AnyTool } from './tool.js';

/**
 * Everything the durable runtime records about a tool: the protocol's {@link ToolDescriptor} plus the tool's id,
 * its output schema, provider details and MCP annotations. Plain JSON, so it can live in workflow history.
 */
export interface FullToolDescriptor extends ToolDescriptor {
  id: string;
  outputSchema?: JsonObject;
  /** Provider tools only: the provider's tool id, e.g. `openai.web_search`. */
  providerId?: string;
  /** Provider tools only: the tool's provider configuration. */
  providerArgs?: JsonObject;
  mcp?: JsonObject;
}

/** Describes one registered tool as plain JSON. */
export function describeTool(tool: RegisteredTool): FullToolDescriptor {
  return isProviderTool(tool) ? describeProviderTool(tool) : describeUserTool(tool);
}

/** Describes a list of tools (e.g. `ToolManager.getAllTools()`) as plain JSON. */
export function describeTools(tools: readonly RegisteredTool[]): FullToolDescriptor[] {
  return tools.map(describeTool);
}

function describeUserTool(tool: AnyTool): FullToolDescriptor {
  const descriptor: FullToolDescriptor = {
    name: tool.name,
    id: tool.id,
    description: tool.description,
    kind: 'user-defined',
    inputSchema: toJsonSchema(tool.parameters, 'input'),
    clientSide: tool.isClientSide(),
    needsApproval: approvalPolicy(tool.needsApproval),
  };
  if (tool.outputSchema) descriptor.outputSchema = toJsonSchema(tool.outputSchema, 'output');
  if (tool.tags) descriptor.tags = [...tool.tags];
  if (tool.activity) descriptor.activity = toJsonValue(tool.activity) as FullToolDescriptor['activity'];
  if (tool.mcp) descriptor.mcp = toJsonValue(tool.mcp) as JsonObject;
  return descriptor;
}

function describeProviderTool(tool: ProviderTool): FullToolDescriptor {
  const descriptor: FullToolDescriptor = {
    name: tool.name,
    id: tool.id,
    description: typeof tool.description === 'string' ? tool.description : '',
    kind: 'provider',
    // The provider runs it inside the model call: from the run's point of view it is neither client-side nor
    // something we execute.
    clientSide: false,
    needsApproval: approvalPolicy(tool.needsApproval),
    providerId: tool.id,
    providerArgs: (toJsonValue(tool.args) ?? {}) as JsonObject,
  };
  const inputSchema = providerInputSchema(tool);
  if (inputSchema) descriptor.inputSchema = inputSchema;
  return descriptor;
}

function approvalPolicy(value: unknown): boolean | 'dynamic' {
  return typeof value === 'function' ? 'dynamic' : value === true;
}

/** The provider tool's input JSON Schema when it is available synchronously; informational only. */
function providerInputSchema(tool: ProviderTool): JsonObject | undefined {
  if (tool.inputSchema === undefined) return undefined;
  try {
    const json: unknown = asSchema(tool.inputSchema as Parameters<typeof asSchema>[0]).jsonSchema;
    if (typeof json !== 'object' || json === null || typeof (json as { then?: unknown }).then === 'function') {
      return undefined;
    }
    return toJsonValue(json) as JsonObject;
  } catch {
    return undefined;
  }
}
