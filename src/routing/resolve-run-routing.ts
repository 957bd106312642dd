import type { AgentRef, AgentToolHooks } from '../tool/agent-hooks.js';
import type { RegisteredTool } from '../tool/normalize-tool.js';
import { ToolManager } from '../tool/tool-manager.js';
import { ROUTING_TOOL_NAMES } from './constants.js';
import { ToolRoutingConfigError } from './errors/tool-routing-config-error.js';
import { registeredPool, ToolRouter, type ToolApprovalHandler, type ToolPool } from './tool-router.js';
import type { ToolSearchService } from './tool-search-service.js';
import type { RunToolRoutingOverride, ToolRoutingConfig } from './types.js';
import { validateRunToolRoutingOverride } from './validate-config.js';

/** Input of {@link resolveRunToolRouting}. */
export interface ResolveRunToolRoutingInput {
  /** The run's tools (`agent.resolveRunTools(ctx)`, or the agent's `getToolManager()`). */
  tools: ToolManager;
  /** The agent's `toolRouting`. */
  config?: ToolRoutingConfig | false;
  /** The run's override from the client (validated here). */
  override?: RunToolRoutingOverride;
  /** The worker's search service. */
  service: ToolSearchService;
  /** For the in-process `callTool` only. */
  agent?: AgentRef;
  agentHooks?: AgentToolHooks;
  approve?: ToolApprovalHandler;
}

/**
 * The tools a run offers: directly, or through routing. `lookup` finds the tool a name means for execution —
 * registered, exposed or pooled — so tools given only in `pool`/`expose` run too.
 */
export type RunToolRouting =
  | { enabled: false; visible: RegisteredTool[]; lookup(name: string): RegisteredTool | undefined }
  | { enabled: true; visible: RegisteredTool[]; router: ToolRouter; lookup(name: string): RegisteredTool | undefined };

const MAX_LISTED_NAMES = 20;

/**
 * Decides, for one run, which tools the model sees and which are pooled, from the agent's routing config and
 * the run's override — both ways:
 * - routing off for the run (`false`) on a routed agent: every tool the agent has (registered, exposed and
 *   pooled) is offered directly (VoltAgent throws here);
 * - routing on for the run (`true` or an object) on an agent without routing: the run is routed, its pool being
 *   every registered tool (VoltAgent offers no tools at all here);
 * - an override object's fields replace the agent's; its `pool`/`expose` name the run's tools.
 *
 * @throws ToolRoutingConfigError for an invalid override or a name that is not one of the run's tools.
 */
export function resolveRunToolRouting(input: ResolveRunToolRoutingInput): RunToolRouting {
  const { tools, override } = input;
  const base = input.config || undefined;
  if (override !== undefined) validateRunToolRoutingOverride(override);
  if (override === false || (override === undefined && !base)) {
    const direct = directManager(tools, base);
    return { enabled: false, visible: direct.getAllTools(), lookup: (name) => direct.getToolByName(name) };
  }
  const router = new ToolRouter({
    tools,
    config: routedConfig(tools, base, override),
    service: input.service,
    agent: input.agent,
    agentHooks: input.agentHooks,
    approve: input.approve,
  });
  return { enabled: true, visible: router.visibleTools(), router, lookup: (name) => router.toolByName(name) };
}

/**
 * The pool of a routed run (what its `callTool` may call), without building the run's router: the same tools
 * {@link resolveRunToolRouting}'s router pools. Undefined when the run is not routed. The override is not validated
 * again (the run's first activity did).
 *
 * @throws ToolRoutingConfigError when the override's `pool` names a tool the run does not have.
 */
export function resolveRunToolPool(
  input: Pick<ResolveRunToolRoutingInput, 'tools' | 'config' | 'override'>,
): ToolPool | undefined {
  const { tools, override } = input;
  const base = input.config || undefined;
  if (override === false || (override === undefined && !base)) return undefined;
  const pool =
    typeof override === 'object' && override.pool
      ? pick(directManager(tools, base), override.pool, 'pool')
      : base?.pool;
  return pool ? new ToolManager(pool) : registeredPool(tools);
}

/** The routing config of a routed run: the agent's, with the run's override fields replacing its own. */
function routedConfig(
  tools: ToolManager,
  base: ToolRoutingConfig | undefined,
  override: RunToolRoutingOverride | undefined,
): ToolRoutingConfig {
  if (typeof override !== 'object') return base ?? {};
  const known = directManager(tools, base);
  const config = { ...base };
  if (override.pool) config.pool = pick(known, override.pool, 'pool');
  if (override.expose) config.expose = pick(known, override.expose, 'expose');
  if (override.embedding !== undefined) config.embedding = override.embedding;
  if (override.topK !== undefined) config.topK = override.topK;
  if (override.enforceSearchBeforeCall !== undefined) config.enforceSearchBeforeCall = override.enforceSearchBeforeCall;
  return config;
}

/** Without routing: the registered tools, then exposed and pooled ones the manager lacks (one per name). */
function directManager(tools: ToolManager, config: ToolRoutingConfig | undefined): ToolManager {
  if (!config?.expose?.length && !config?.pool?.length) return tools;
  const merged = new ToolManager();
  const add = (items: readonly RegisteredTool[]) => {
    for (const tool of items) if (!merged.getToolByName(tool.name)) merged.addStandaloneTool(tool);
  };
  add(tools.getAllTools());
  add(new ToolManager(config.expose ?? []).getAllTools());
  add(new ToolManager(config.pool ?? []).getAllTools());
  return merged;
}

function pick(known: ToolManager, names: readonly string[], field: 'pool' | 'expose'): RegisteredTool[] {
  const missing = names.filter((name) => !known.getToolByName(name) || ROUTING_TOOL_NAMES.includes(name));
  if (missing.length > 0) {
    const available = known.getAllToolNames().filter((name) => !ROUTING_TOOL_NAMES.includes(name));
    const shown = available.slice(0, MAX_LISTED_NAMES).join(', ');
    const more = available.length > MAX_LISTED_NAMES ? ` and ${available.length - MAX_LISTED_NAMES} more` : '';
    throw new ToolRoutingConfigError(
      `toolRouting.${field}`,
      `The run's toolRouting.${field} names tools this agent does not have: ${missing.slice(0, MAX_LISTED_NAMES).join(', ')}. ` +
        `Its tools: ${shown || '(none)'}${more}.`,
    );
  }
  return [...new Set(names)].map((name) => known.getToolByName(name)!);
}
