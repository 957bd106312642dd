import type { RegisteredTool } from './normalize-tool.js';
import { isProviderTool } from './provider-tool.js';
import { validateSchema, type SchemaCheck } from './schema.js';
import type { AnyTool } from './tool.js';

/** What {@link checkToolCall} needs from a tool registry (a `ToolManager` fits). */
export interface ToolLookup {
  getToolByName(name: string): RegisteredTool | undefined;
  getAllToolNames(): string[];
}

/**
 * The verdict on one tool call from the model. Bad calls are not crashes: their `message` goes back to the model
 * as the tool result, and the run goes on.
 */
export type ToolCallCheck =
  | { kind: 'valid'; tool: AnyTool; args: unknown }
  | { kind: 'unknown-tool'; message: string }
  | { kind: 'invalid-args'; tool: AnyTool; message: string };

type Prepared = { done: ToolCallCheck } | { tool: AnyTool; value: unknown };

/**
 * Checks a model's tool call: the name must be a registered tool we execute, and the arguments (an object or a
 * JSON string) must satisfy its parameters schema. `valid.args` is the parsed value (defaults applied). Schemas
 * with async refinements or async validators are supported.
 */
export async function checkToolCall(lookup: ToolLookup, toolName: string, rawArgs: unknown): Promise<ToolCallCheck> {
  const prepared = prepare(lookup, toolName, rawArgs);
  if ('done' in prepared) return prepared.done;
  return verdict(prepared.tool, await validateSchema(prepared.tool.parameters, prepared.value));
}

function prepare(lookup: ToolLookup, toolName: string, rawArgs: unknown): Prepared {
  const names = lookup.getAllToolNames();
  // The name is untrusted model output: accept it only if it is literally one of the registered names, so
  // '__proto__', 'constructor' or 'toString' can never reach an inherited property of some registry object.
  const tool = typeof toolName === 'string' && names.includes(toolName) ? lookup.getToolByName(toolName) : undefined;
  if (!tool) return { done: { kind: 'unknown-tool', message: unavailableMessage(String(toolName), names) } };
  if (isProviderTool(tool)) {
    return {
      done: {
        kind: 'unknown-tool',
        message: `Tool '${tool.name}' is executed by the model provider and cannot be called as a local tool.`,
      },
    };
  }
  if (typeof rawArgs !== 'string') return { tool, value: rawArgs };
  // Models send arguments as JSON text; an empty string means "no arguments", as in the AI SDK.
  if (rawArgs.trim() === '') return { tool, value: {} };
  try {
    return { tool, value: JSON.parse(rawArgs) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { done: invalid(tool, `the arguments are not valid JSON (${reason})`) };
  }
}

function verdict(tool: AnyTool, check: SchemaCheck): ToolCallCheck {
  if (check.success) return { kind: 'valid', tool, args: check.value };
  return invalid(tool, check.message);
}

function invalid(tool: AnyTool, detail: string): ToolCallCheck {
  return { kind: 'invalid-args', tool, message: `Invalid input for tool ${tool.name}: ${detail}` };
}

function unavailableMessage(toolName: string, names: readonly string[]): string {
  const available = names.length > 0 ? `Available tools: ${names.join(', ')}.` : 'No tools are available.';
  return `Model tried to call unavailable tool '${toolName}'. ${available}`;
}
