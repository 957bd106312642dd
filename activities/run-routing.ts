import { ApplicationFailure } from '@temporalio/common';
import type { Agent } from '../src/agent/agent.js';
import { classifyModelError, isAbortError } from '../src/models/call-model.js';
import { FailureType, type RunContextData } from '../src/protocol/index.js';
import { ToolRoutingConfigError } from '../src/routing/errors/tool-routing-config-error.js';
import { resolveRunToolRouting, type RunToolRouting } from '../src/routing/resolve-run-routing.js';
import type { ToolLookup } from '../src/tool/check-tool-call.js';
import type { RegisteredTool } from '../src/tool/normalize-tool.js';
import type { ToolManager } from '../src/tool/tool-manager.js';
import type { ActivityDependencies } from '../src/runtime/dependencies.js';

/**
 * A run's tool routing as the worker sees it now (tool definitions are live: docs/upgrading.md): the agent's
 * `toolRouting` under the run's override. Undefined when neither configures routing — such runs keep the plain
 * tool path unchanged. An override naming tools the agent lacks fails the activity without retries.
 */
export function runRouting(
  deps: ActivityDependencies,
  agent: Agent,
  tools: ToolManager,
  run: RunContextData,
): RunToolRouting | undefined {
  const override = run.toolRouting;
  if (!agent.toolRouting && override === undefined) return undefined;
  try {
    return resolveRunToolRouting({ tools, config: agent.toolRouting, override, service: deps.toolSearch });
  } catch (err) {
    throw ToolRoutingConfigError.isInstance(err) ? routingFailure(err) : err;
  }
}

/**
 * Every tool a name can mean for execution in a routed run: the visible ones (built-ins, exposed, user tools named
 * like the built-ins) and the pooled ones (`callTool` targets, which an explicit `pool` may hold without the agent
 * registering them). Without routing: the tools offered directly.
 */
export function routingLookup(routing: RunToolRouting): ToolLookup {
  const names = new Set(routing.visible.map((tool) => tool.name));
  if (routing.enabled) for (const tool of routing.router.pool().getAllTools()) names.add(tool.name);
  return { getAllToolNames: () => [...names], getToolByName: (name) => routing.lookup(name) };
}

/** A lookup over exactly these tools (what the model was offered). */
export function offeredLookup(tools: readonly RegisteredTool[]): ToolLookup {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return { getAllToolNames: () => [...byName.keys()], getToolByName: (name) => byName.get(name) };
}

/**
 * A routing failure as it crosses the activity boundary: an invalid config (`Routing.InvalidConfig`, not
 * retryable), an embedding model the worker cannot build or a provider error (`Model.*`, as for model calls).
 * Aborts pass through unchanged, so cancellation stays cancellation.
 */
export function routingFailure(err: unknown, signal?: AbortSignal): unknown {
  if (isAbortError(err, signal)) return err;
  if (ToolRoutingConfigError.isInstance(err)) {
    return ApplicationFailure.create({
      type: FailureType.RoutingInvalidConfig,
      message: err.message,
      nonRetryable: true,
    });
  }
  return classifyModelError(err);
}
