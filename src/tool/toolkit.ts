import { getGlobalLogger } from '../logger.js';
import type { NamedAiSdkTool } from './ai-sdk-tool.js';
import type { ProviderTool } from './provider-tool.js';
import type { AnyTool } from './tool.js';

/** Anything that can sit in a toolkit: our tools, provider tools, and named AI SDK tools. */
export type ToolkitItem = AnyTool | ProviderTool | NamedAiSdkTool;

/**
 * A named group of related tools with shared instructions. Any object with a `tools` array is a toolkit;
 * {@link createToolkit} only adds validation and defaults. Toolkits do not nest.
 */
export interface Toolkit {
  name: string;
  description?: string;
  /** Guidance on using the tools together; added to the system prompt when `addInstructions` is true. */
  instructions?: string;
  addInstructions?: boolean;
  tools: ToolkitItem[];
}

/** Anything an agent or a tool manager accepts. */
export type ToolItem = ToolkitItem | Toolkit;

/** Options of {@link createToolkit}. */
export interface ToolkitOptions {
  name: string;
  description?: string;
  instructions?: string;
  /** Defaults to false. */
  addInstructions?: boolean;
  tools?: ToolkitItem[];
}

/**
 * Creates a toolkit. Throws `Toolkit name is required`; warns `Toolkit '<name>' created without any tools`.
 * Defaults: `description ""`, `addInstructions false`, `tools []`.
 */
export function createToolkit(options: ToolkitOptions): Toolkit {
  if (!options.name) throw new Error('Toolkit name is required');
  if (!options.tools || options.tools.length === 0) {
    getGlobalLogger().warn(`Toolkit '${options.name}' created without any tools`);
  }
  return {
    name: options.name,
    description: options.description || '',
    instructions: options.instructions,
    addInstructions: options.addInstructions || false,
    tools: options.tools || [],
  };
}

/** True for any object with a `tools` array. */
export function isToolkit(value: unknown): value is Toolkit {
  return typeof value === 'object' && value !== null && Array.isArray((value as { tools?: unknown }).tools);
}
