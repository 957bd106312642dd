import type { LanguageModel, ModelMessage } from 'ai';
import { getGlobalLogger } from '../logger.js';
import { truncateUtf8, utf8Length } from '../protocol/bytes.js';
import { MAX_DELTA_INTERVAL_MS, MIN_DELTA_INTERVAL_MS } from '../protocol/run-stream.js';
import { validateToolRoutingConfig } from '../routing/validate-config.js';
import type { Retriever } from '../tool/retriever/types.js';
import type { ToolApiEntry } from '../tool/tool-manager.js';
import { checkAgentLocalTools } from '../tool/local-tool.js';
import { ToolManager } from '../tool/tool-manager.js';
import type { AnyTool } from '../tool/tool.js';
import type { ToolItem } from '../tool/toolkit.js';
import { durationToMs } from '../duration.js';
import type { MCPConfiguration } from '../mcp/configuration.js';
import { mergeRunTools } from './run-tools.js';
import { assembleSystemPrompt } from './system-prompt.js';
import type {
  AgentApprovalOptions,
  AgentHooks,
  AgentInstructions,
  AgentOptions,
  AgentSummarizationOptions,
  AgentRunContext,
  DynamicTools,
  ToolRoutingConfig,
} from './types.js';

/** Input of {@link Agent.buildSystemPrompt}. */
export interface BuildSystemPromptInput {
  /** The run's input, given to the retriever. */
  input: string | ModelMessage[];
  ctx: AgentRunContext;
  /** The run's tools from {@link Agent.resolveRunTools}; resolved again when omitted. */
  tools?: ToolManager;
  /**
   * Largest prompt in UTF-8 bytes: retrieved context that would pass it is truncated (and `retrieverError` says so).
   * The rest of the prompt is never cut.
   */
  maxBytes?: number;
}

/** Result of {@link Agent.buildSystemPrompt}. */
export interface BuiltSystemPrompt {
  text: string;
  /** Set when the retriever failed; the prompt was built without its context. */
  retrieverError?: string;
}

/**
 * An agent definition: instructions, model, tools and hooks. It holds no run state — the durable runtime looks it
 * up by name in each activity and asks it for the run's tools and system prompt.
 */
export class Agent {
  readonly name: string;
  readonly id: string;
  readonly purpose?: string;
  readonly instructions: AgentInstructions;
  readonly model?: string | LanguageModel;
  readonly toolRouting?: ToolRoutingConfig | false;
  readonly retriever?: Retriever;
  readonly hooks: AgentHooks;
  readonly markdown: boolean;
  readonly maxSteps?: number;
  readonly toolConcurrency?: number;
  readonly approval?: AgentApprovalOptions;
  /** Temporal activity options for model calls and (as defaults) tools. */
  readonly activity?: AgentOptions['activity'];
  /** `approval.timeout` in milliseconds; undefined when approvals wait forever. */
  readonly approvalTimeoutMs?: number;
  readonly mcp?: MCPConfiguration;
  /** How conversations with this agent compact their transcript (see `AgentOptions.summarization`). */
  readonly summarization?: AgentSummarizationOptions | false;
  /** `elicitation.timeout` in ms; undefined when MCP questions wait forever. */
  readonly elicitationTimeoutMs?: number;
  /** Model streaming in durable runs: `false` (off) or its batch interval (see `AgentOptions.streaming`). */
  readonly streaming: false | { intervalMs?: number };
  private readonly toolManager: ToolManager;
  private readonly dynamicTools?: DynamicTools;

  constructor(options: AgentOptions) {
    if (!options.name) throw new Error('Agent name is required');
    // Fail at definition time, not at the first search: reserved names in pool/expose, a bad topK, a typo'd key.
    validateToolRoutingConfig(options.toolRouting);
    this.name = options.name;
    this.id = options.id ?? options.name;
    this.purpose = options.purpose;
    this.instructions = options.instructions;
    this.model = options.model;
    this.toolRouting = options.toolRouting;
    this.retriever = options.retriever;
    this.hooks = options.hooks ?? {};
    this.markdown = options.markdown ?? false;
    this.maxSteps = options.maxSteps;
    if (
      options.toolConcurrency !== undefined &&
      !(Number.isInteger(options.toolConcurrency) && options.toolConcurrency > 0)
    ) {
      throw new TypeError(`Agent '${options.name}': toolConcurrency must be a positive integer`);
    }
    this.toolConcurrency = options.toolConcurrency;
    this.approval = options.approval;
    this.activity = options.activity;
    if (options.approval?.timeout !== undefined) this.approvalTimeoutMs = durationToMs(options.approval.timeout);
    this.mcp = options.mcp;
    this.summarization = options.summarization;
    if (options.elicitation?.timeout !== undefined) {
      this.elicitationTimeoutMs = durationToMs(options.elicitation.timeout);
    }
    this.streaming = checkStreaming(options.name, options.streaming);
    this.toolManager = new ToolManager(Array.isArray(options.tools) ? options.tools : []);
    for (const toolkit of options.toolkits ?? []) this.toolManager.addToolkit(toolkit);
    if (typeof options.tools === 'function') this.dynamicTools = options.tools;
    // Local activities as the tools' default: every static tool must be able to run locally, or opt out.
    checkAgentLocalTools(this.name, options.activity?.tools, this.toolManager.getAllBaseTools());
  }

  /** Adds static tools or toolkits (same conflict rules as the tool manager). */
  addTools(items: ToolItem[]): { added: ToolItem[] } {
    this.toolManager.addItems(items);
    return { added: items };
  }

  /** Removes static standalone tools; returns the names that were actually removed. */
  removeTools(names: string[]): { removed: string[] } {
    return { removed: names.filter((name) => this.toolManager.removeTool(name)) };
  }

  /** Removes a static toolkit. */
  removeToolkit(name: string): boolean {
    return this.toolManager.removeToolkit(name);
  }

  /** The static tools of our own (provider tools excluded), one per name. */
  getTools(): AnyTool[] {
    return this.toolManager.getAllBaseTools();
  }

  /** The static tools as `{ name, description, parameters }` with JSON Schema parameters. */
  getToolsForApi(): ToolApiEntry[] {
    return this.toolManager.getToolsForApi();
  }

  /** The manager of the static tools (changing it changes the agent). */
  getToolManager(): ToolManager {
    return this.toolManager;
  }

  /**
   * The tools of one run: the static ones plus those of the `tools` function evaluated with the run's context.
   * Per-run tools override same-name static ones; per-run toolkits replace same-name static toolkits in place.
   * Always a new manager, so a run cannot change the agent.
   */
  async resolveRunTools(ctx: AgentRunContext): Promise<ToolManager> {
    const runItems = this.dynamicTools ? await this.dynamicTools(ctx) : [];
    return mergeRunTools(this.toolManager, runItems);
  }

  /**
   * The system prompt of one run: instructions, toolkit instructions (static order, per-run after, same-name
   * per-run in place), the markdown instruction, then the retriever's context. A failing retriever is logged
   * (`Failed to retrieve context`) and reported in `retrieverError`; the prompt is built without it.
   */
  async buildSystemPrompt({ input, ctx, tools, maxBytes }: BuildSystemPromptInput): Promise<BuiltSystemPrompt> {
    const runTools = tools ?? (await this.resolveRunTools(ctx));
    const instructions = typeof this.instructions === 'function' ? await this.instructions(ctx) : this.instructions;
    let retrievedContext: string | undefined;
    let retrieverError: string | undefined;
    if (this.retriever) {
      try {
        retrievedContext = await this.retriever.retrieve(input, {
          userId: ctx.userId,
          conversationId: ctx.conversationId,
          context: ctx.context,
          logger: getGlobalLogger(),
        });
      } catch (error) {
        getGlobalLogger().error('Failed to retrieve context', { agent: this.name, error });
        retrieverError = error instanceof Error ? error.message : String(error);
      }
    }
    const parts = { instructions, toolkits: runTools.getToolkits(), markdown: this.markdown };
    let text = assembleSystemPrompt({ ...parts, retrievedContext });
    if (maxBytes !== undefined && retrievedContext && utf8Length(text) > maxBytes) {
      // Keep what fits of the retrieved context; the instructions are the agent's and are never cut.
      const withoutContext = assembleSystemPrompt(parts);
      const budget = maxBytes - utf8Length(withoutContext) - utf8Length('\n\nRelevant Context:\n');
      const kept = budget > 0 ? truncateUtf8(retrievedContext, budget) : '';
      text = assembleSystemPrompt({ ...parts, retrievedContext: kept });
      retrieverError ??=
        `Retrieved context of ${utf8Length(retrievedContext)} bytes truncated to ${utf8Length(kept)} bytes ` +
        `to keep the system prompt within ${maxBytes} bytes.`;
      getGlobalLogger().warn(retrieverError, { agent: this.name });
    }
    return retrieverError === undefined ? { text } : { text, retrieverError };
  }
}

/** `AgentOptions.streaming` as the agent keeps it; a bad interval fails at definition time, saying the bounds. */
function checkStreaming(agent: string, streaming: AgentOptions['streaming']): false | { intervalMs?: number } {
  if (streaming === false) return false;
  if (streaming === undefined || streaming === true) return {};
  const { intervalMs } = streaming;
  if (
    intervalMs !== undefined &&
    !(Number.isInteger(intervalMs) && intervalMs >= MIN_DELTA_INTERVAL_MS && intervalMs <= MAX_DELTA_INTERVAL_MS)
  ) {
    throw new TypeError(
      `Agent '${agent}': streaming.intervalMs must be an integer from ${MIN_DELTA_INTERVAL_MS} to ` +
        `${MAX_DELTA_INTERVAL_MS} (ms), got ${String(intervalMs)}`,
    );
  }
  return intervalMs !== undefined ? { intervalMs } : {};
}
