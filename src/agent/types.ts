import type { GenerateActivityOptions, ToolActivityOptions } from '../protocol/descriptor.js';
import type { ApprovalRunInfo, AuthorizeDecisionResult } from '../protocol/activity-io.js';
import type { ApprovalDecision, PendingApproval } from '../protocol/run.js';
import type { LanguageModel } from 'ai';
import type { AgentToolHooks } from '../tool/agent-hooks.js';
import type { Retriever } from '../tool/retriever/types.js';
import type { ToolItem, Toolkit } from '../tool/toolkit.js';
import type { Agent } from './agent.js';
import type { MCPConfiguration } from '../mcp/configuration.js';
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

/**
 * Decides whether a decision may settle a pending approval, in the worker (a local activity). Return `true`/`false`,
 * or `{ allowed, reason?, approver? }`: a refused decision leaves the request pending (the decider is told why), and
 * an `approver` returned here is recorded as verified instead of the one the decision claims. A hook that throws
 * refuses the decision.
 */
export type AuthorizeDecisionHook = (
  decision: ApprovalDecision,
  request: PendingApproval,
  run: ApprovalRunInfo,
) => boolean | AuthorizeDecisionResult | PromiseLike<boolean | AuthorizeDecisionResult>;

/** Human-approval policy of an agent. */
export interface AgentApprovalOptions {
  /** How long a pending approval waits before it is denied: ms, or a duration string such as `'24h'`. */
  timeout?: string | number;
  /**
   * Keep decisions sent before their request exists (by signal, without the request's token). Off by default: a
   * decision must echo the token that only the request reveals, so nobody approves a call they never saw.
   */
  earlyDecisions?: boolean;
  /** Checks each decision before it applies (who may approve what). */
  authorizeDecision?: AuthorizeDecisionHook;
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
  /** Tool activities of one step that run at once (default 32); the others start as these finish. */
  toolConcurrency?: number;
  approval?: AgentApprovalOptions;
  /**
   * Temporal activity options for this agent's runs: `generate` for each model call (default: 5 minutes, heartbeat
   * 30 s, 8 attempts), `tools` as defaults under each tool's own `activity` options. `tools: { local: true }` runs
   * the agent's tools as local activities (see `ToolActivityOptions.local`): a static tool that cannot (streaming,
   * approval, client-side) must say `activity: { local: false }`; MCP tools and per-run tools that cannot run
   * locally keep their own activity.
   */
  activity?: { generate?: GenerateActivityOptions; tools?: ToolActivityOptions };
  /**
   * MCP servers whose tools the agent uses. In a durable run each server is listed once per run (an activity per
   * server, recorded in history) and each call of one of its tools is its own tool activity; the configuration, with
   * its secrets, stays on the worker.
   */
  mcp?: MCPConfiguration;
  /** MCP questions to people: how long one waits before the server is told `cancel` (ms or e.g. `'24h'`). */
  elicitation?: { timeout?: string | number };
  /**
   * Model streaming in durable runs (default on): each step's model call streams, and its text, reasoning and
   * tool-input pieces are published on the run's stream as they are written (`run.stream()`, topic `deltas`). The
   * first piece of a step goes out at once, later ones every `intervalMs` (default 100, 20 to 5,000). `false` calls
   * the model without streaming and publishes nothing. A run's `streaming` start option overrides it.
   */
  streaming?: boolean | { intervalMs?: number };
  /**
   * How a conversation with this agent (`client.conversation(...)`) stays within a context budget: older turns become a
   * summary written by a model call (VoltAgent's `summarization` shape). `false`, or no `summarization`: older turns
   * are dropped, the newest `keepMessages` kept. See docs/conversations.md.
   */
  summarization?: AgentSummarizationOptions | false;
}

/** Conversation compaction by summary (see `AgentOptions.summarization`). */
export interface AgentSummarizationOptions {
  /** Default true. `false` keeps the triggers but drops older turns instead of summarizing them. */
  enabled?: boolean;
  /** The summarizer: `provider/model` or an AI SDK model. Default: the agent's model. */
  model?: string | LanguageModel;
  /** Compact before a turn when the transcript holds more messages than this. Default 40. */
  triggerMessages?: number;
  /** Compact before a turn when the transcript's UTF-8 bytes (as JSON) pass this. Default 200 KB. */
  triggerBytes?: number;
  /** Newest messages kept verbatim (the cut never splits a turn). Default 10. */
  keepMessages?: number;
  /** The summarizer's instructions. Default: a short factual summary keeping names, numbers and decisions. */
  instructions?: string;
  /** Bound of the summary's length in tokens. Default 1,024. */
  maxOutputTokens?: number;
}
