import type { GenerateActivityOptions, ToolActivityOptions } from '../protocol/descriptor.js';
import type { LanguageModel } from 'ai';
import type { AgentToolHooks } from '../tool/agent-hooks.js';
import type { Retriever } from '../tool/retriever/types.js';
import type { ToolItem, Toolkit } from '../tool/toolkit.js';
import type { Agent } from './agent.js';
import type { ToolRoutingConfig } from '../routing/types.js';

/** The run-scoped data an agent's dynamic parts (tools, instructions, retriever) are evaluated with. */
export interface AgentRunContext {
  userId?: string;
  conversationId?: string;
  context: Map<string, unknown>;
}

/** Tools computed per run from its context. */
export type DynamicTools = (ctx: AgentRunContext) => ToolItem[] | Promise<ToolItem[]>;

/** Instructions, fixed or computed per run. */
export type AgentInstructions = string | ((ctx: AgentRunContext) => string | Promise<string>);

/** Tool routing: the model sees `searchTools`, `callTool` and `expose`; the rest of `pool` is reached by search. */
export type { ToolRoutingConfig } from '../routing/types.js';

/** Human-approval policy of an agent. */
export interface AgentApprovalOptions {
  /** How long a pending approval waits before it is denied: ms, or a duration string such as `'24h'`. */
  timeout?: string | number;
}

/** Agent hooks around tool calls; `agent` is the {@link Agent} itself. */
export type AgentHooks = AgentToolHooks<Agent>;

/** Options of `new Agent(...)`. */
export interface AgentOptions {
  name: string;
  /** Defaults to `name`. */
  id?: string;
  /** What the agent is for (used when it is offered as a tool to other agents). */
  purpose?: string;
  instructions: AgentInstructions;
  /** `provider/model` resolved by the worker's provider registry, or an AI SDK model (worker side only). */
  model?: string | LanguageModel;
  /** Tools and toolkits, or a function of the run context evaluated per run. */
  tools?: ToolItem[] | DynamicTools;
  toolkits?: Toolkit[];
  toolRouting?: ToolRoutingConfig | false;
  /** Its text is added to the system prompt as `Relevant Context`. */
  retriever?: Retriever;
  hooks?: AgentHooks;
  /** Ask the model to format answers with markdown. */
  markdown?: boolean;
  /** Step budget of a run. */
  maxSteps?: number;
  approval?: AgentApprovalOptions;
  /**
   * Temporal activity options for this agent's runs: `generate` for each model call (default: 5 minutes, heartbeat
   * 30 s, 8 attempts), `tools` as defaults under each tool's own `activity` options.
   */
  activity?: { generate?: GenerateActivityOptions; tools?: ToolActivityOptions };
  /** MCP servers whose tools the agent uses (an `MCPConfiguration`); listed and called by the durable runtime. */
  mcp?: unknown;
}
