import type { Tool as AiSdkTool, ModelMessage } from 'ai';
import type { JsonObject } from '../protocol/json.js';
import { getGlobalLogger } from '../logger.js';
import { describeTools, type FullToolDescriptor } from './descriptor.js';
import { normalizeTool, type RegisteredTool } from './normalize-tool.js';
import { isProviderTool, type ProviderTool } from './provider-tool.js';
import { toJsonSchema } from './schema.js';
import type { ToolSpec } from '../models/call-model.js';
import { toolModelSpec } from './tool-spec.js';
import { isToolkit, type ToolItem, type Toolkit } from './toolkit.js';
import type { AnyTool } from './tool.js';

/** A toolkit as the manager stores it: defaults filled in and its tools normalized. */
export interface RegisteredToolkit extends Toolkit {
  description: string;
  addInstructions: boolean;
  tools: RegisteredTool[];
}

/** One entry of {@link ToolManager.getToolsForApi}. */
export interface ToolApiEntry {
  name: string;
  description: string;
  /** JSON Schema of the arguments; absent for provider tools whose schema is not ours. */
  parameters?: JsonObject;
}

/** Builds the AI SDK `execute` of one tool, for {@link ToolManager.prepareToolsForExecution}. */
export type ToolExecuteFactory = (tool: AnyTool) => (args: unknown, options: any) => unknown;

/**
 * Holds an agent's standalone tools, provider tools and toolkits, and decides which tool each name means.
 *
 * Invariant (VoltAgent gets this wrong): every view — `getToolByName`, `getAllTools`, `getAllToolNames`,
 * `getToolsForApi`, `prepareToolsForExecution`, `getToolDescriptors` — resolves a name the same way, so the tool
 * the model is shown is the tool that runs. Precedence: a standalone tool shadows a same-name toolkit tool; among
 * toolkits, names never collide because a colliding toolkit is refused.
 */
export class ToolManager {
  // One standalone tool per name across both maps: adding one of either kind replaces the other.
  private readonly standalone = new Map<string, AnyTool>();
  private readonly providers = new Map<string, ProviderTool>();
  private readonly toolkits = new Map<string, RegisteredToolkit>();
  // The resolved name → tool view, rebuilt lazily after any change (lookups are on every tool call's path).
  private view: Map<string, RegisteredTool> | undefined;

  constructor(items: readonly ToolItem[] = []) {
    this.addItems(items);
  }

  /** Adds tools and toolkits; an item without a name is skipped with a warning. */
  addItems(items: readonly ToolItem[]): void {
    for (const item of items) {
      if (!item || typeof (item as { name?: unknown }).name !== 'string' || !(item as { name: string }).name) {
        // Provider tools may come without a name (it is derived from their id).
        if (isProviderTool(item)) this.addStandaloneTool(item);
        else getGlobalLogger().warn('Skipping invalid item in addItems:', item);
        continue;
      }
      if (isToolkit(item)) this.addToolkit(item);
      else this.addStandaloneTool(item);
    }
  }

  /**
   * Adds one tool. A same-name standalone tool is replaced (with a warning); a same-name toolkit tool is
   * shadowed (with a warning) until this tool is removed. Returns false for items that are not tools.
   */
  addStandaloneTool(item: unknown): boolean {
    const tool = normalizeTool(item, 'addStandaloneTool');
    if (!tool) return false;
    const { name } = tool;
    const previous = this.standalone.get(name) ?? this.providers.get(name);
    if (previous && previous !== tool) {
      getGlobalLogger().warn(
        `[ToolManager] Standalone tool '${name}' replaces an existing standalone tool with the same name.`,
      );
    } else if (!previous) {
      const owner = this.toolkitOf(name);
      if (owner) {
        getGlobalLogger().warn(
          `[ToolManager] Standalone tool '${name}' shadows the tool of the same name in toolkit '${owner}'; the standalone tool is used.`,
        );
      }
    }
    this.view = undefined;
    if (isProviderTool(tool)) {
      this.standalone.delete(name);
      this.providers.set(name, tool);
    } else {
      this.providers.delete(name);
      this.standalone.set(name, tool);
    }
    return true;
  }

  /**
   * Adds a toolkit. If any of its tools collides with a registered tool (other than those of the toolkit it
   * replaces), the whole toolkit is refused and false returned. A toolkit with an existing toolkit's name
   * replaces it in place.
   */
  addToolkit(toolkit: Toolkit): boolean {
    if (!toolkit?.name) {
      getGlobalLogger().warn('Skipping a toolkit without a name', toolkit);
      return false;
    }
    const registered = this.registerToolkit(toolkit);
    const conflicts = registered.tools.filter((t) => this.isTakenOutside(t.name, toolkit.name));
    if (conflicts.length > 0) {
      getGlobalLogger().warn(
        `Toolkit '${toolkit.name}' contains tools that conflict with existing tools. Skipping addition.`,
        { conflicts: conflicts.map((t) => t.name) },
      );
      return false;
    }
    if (this.toolkits.has(toolkit.name)) {
      getGlobalLogger().warn(`Toolkit with name '${toolkit.name}' already exists. Replacing it.`);
    }
    // Map.set on an existing key keeps its position: a replaced toolkit stays where the old one was.
    this.toolkits.set(toolkit.name, registered);
    this.view = undefined;
    return true;
  }

  /** Removes a standalone (or provider) tool. Tools inside toolkits are not removed. */
  removeTool(name: string): boolean {
    this.view = undefined;
    return this.standalone.delete(name) || this.providers.delete(name);
  }

  /** Removes a toolkit by name. */
  removeToolkit(name: string): boolean {
    this.view = undefined;
    return this.toolkits.delete(name);
  }

  /** The toolkits, in insertion order (copies: changing them does not change the manager). */
  getToolkits(): RegisteredToolkit[] {
    return [...this.toolkits.values()].map((toolkit) => ({ ...toolkit, tools: [...toolkit.tools] }));
  }

  /** The standalone tools (ours and provider tools), without toolkit tools. */
  getStandaloneTools(): RegisteredTool[] {
    return [...this.standalone.values(), ...this.providers.values()];
  }

  /** Every visible tool, one per name: standalone tools, standalone provider tools, then toolkit tools. */
  getAllTools(): RegisteredTool[] {
    return [...this.resolve().values()];
  }

  /** The visible tools of our own (user-defined, client-side included), without provider tools. */
  getAllBaseTools(): AnyTool[] {
    return this.getAllTools().filter((t): t is AnyTool => !isProviderTool(t));
  }

  /** The visible provider tools, standalone or in toolkits. */
  getAllProviderTools(): ProviderTool[] {
    return this.getAllTools().filter(isProviderTool);
  }

  /** The visible tool names, each once. */
  getAllToolNames(): string[] {
    return [...this.resolve().keys()];
  }

  /** The tool a name means (the same one the model is shown), or undefined. Safe for any string. */
  getToolByName(name: string): RegisteredTool | undefined {
    return this.resolve().get(name);
  }

  /** True when a standalone tool or any toolkit has a tool of this name. */
  hasToolInAny(name: string): boolean {
    return this.standalone.has(name) || this.providers.has(name) || this.toolkitOf(name) !== undefined;
  }

  /** `{ name, description, parameters }` of every visible tool, parameters as JSON Schema. */
  getToolsForApi(): ToolApiEntry[] {
    return this.getAllTools().map((tool) => {
      if (isProviderTool(tool)) {
        return { name: tool.name, description: typeof tool.description === 'string' ? tool.description : '' };
      }
      return { name: tool.name, description: tool.description, parameters: toJsonSchema(tool.parameters) };
    });
  }

  /** The model-facing spec of the tool a name means (JSON Schema, no execute), or undefined. */
  getToolSpec(name: string): ToolSpec | undefined {
    const tool = this.getToolByName(name);
    return tool ? toolModelSpec(tool) : undefined;
  }

  /** Plain-JSON descriptors of every visible tool, as the durable runtime records them in history. */
  getToolDescriptors(): FullToolDescriptor[] {
    return describeTools(this.getAllTools());
  }

  /**
   * An AI SDK tool set keyed by name, for running the agent in-process with `generateText`/`streamText`.
   * Provider tools are passed through as they are; client-side tools get no `execute`.
   */
  prepareToolsForExecution(createExecute: ToolExecuteFactory): Record<string, AiSdkTool> {
    const prepared: Record<string, AiSdkTool> = {};
    for (const [name, tool] of this.resolve()) {
      if (isProviderTool(tool)) {
        prepared[name] = tool as unknown as AiSdkTool;
        continue;
      }
      const approval = tool.needsApproval;
      prepared[name] = {
        description: tool.description,
        inputSchema: tool.parameters,
        outputSchema: tool.outputSchema,
        providerOptions: tool.providerOptions,
        toModelOutput: tool.toModelOutput,
        needsApproval:
          typeof approval === 'function'
            ? (args: unknown, opts: { toolCallId: string; messages: ModelMessage[]; context?: object }) =>
                approval(args, {
                  toolCallId: opts.toolCallId,
                  messages: opts.messages,
                  context: new Map(Object.entries(opts.context ?? {})),
                })
            : approval,
        execute: tool.isClientSide() ? undefined : createExecute(tool),
      } as unknown as AiSdkTool;
    }
    return prepared;
  }

  /** Name → tool, in view order. The single place where precedence is decided. */
  private resolve(): Map<string, RegisteredTool> {
    if (this.view) return this.view;
    const visible = new Map<string, RegisteredTool>();
    for (const [name, tool] of this.standalone) visible.set(name, tool);
    for (const [name, tool] of this.providers) visible.set(name, tool);
    for (const toolkit of this.toolkits.values()) {
      for (const tool of toolkit.tools) if (!visible.has(tool.name)) visible.set(tool.name, tool);
    }
    this.view = visible;
    return visible;
  }

  private toolkitOf(name: string): string | undefined {
    for (const toolkit of this.toolkits.values()) if (toolkit.tools.some((t) => t.name === name)) return toolkit.name;
    return undefined;
  }

  /** True when `name` is used by a standalone tool or by a toolkit other than `exceptToolkit`. */
  private isTakenOutside(name: string, exceptToolkit: string): boolean {
    if (this.standalone.has(name) || this.providers.has(name)) return true;
    for (const toolkit of this.toolkits.values()) {
      if (toolkit.name !== exceptToolkit && toolkit.tools.some((t) => t.name === name)) return true;
    }
    return false;
  }

  /** Fills a toolkit's defaults and normalizes its tools; nested toolkits and duplicates are skipped. */
  private registerToolkit(toolkit: Toolkit): RegisteredToolkit {
    const tools: RegisteredTool[] = [];
    for (const item of toolkit.tools) {
      if (isToolkit(item)) {
        const inner = (item as { name?: unknown }).name;
        getGlobalLogger().warn(
          `Toolkit '${toolkit.name}' contains toolkit '${String(inner)}': nested toolkits are not supported. Skipping '${String(inner)}'.`,
        );
        continue;
      }
      const tool = normalizeTool(item, `toolkit '${toolkit.name}'`);
      if (!tool) continue;
      if (tools.some((t) => t.name === tool.name)) {
        getGlobalLogger().warn(
          `Toolkit '${toolkit.name}' lists tool '${tool.name}' more than once; keeping the first.`,
        );
        continue;
      }
      tools.push(tool);
    }
    return {
      ...toolkit,
      description: toolkit.description ?? '',
      addInstructions: toolkit.addInstructions ?? false,
      tools,
    };
  }
}
