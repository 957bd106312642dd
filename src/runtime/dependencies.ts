import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { LRUCache } from 'lru-cache';
import type { Agent } from '../agent/agent.js';
import { AgentNotFoundError } from '../agent/agent-not-found-error.js';
import type { AgentRegistry } from '../agent/registry.js';
import type { ToolManager } from '../tool/tool-manager.js';
import type { ProviderRegistry } from '../models/provider-registry.js';
import { FailureType, type McpListingRef, type RunContextData, type RunRef } from '../protocol/index.js';
import type { ToolSearchService } from '../routing/tool-search-service.js';
import type { LiveStream } from '../live/live-stream.js';
import type { McpRuntime } from './mcp-runtime.js';
import type { SearchAttributesCheck } from './search-attributes-check.js';
import type { WorkerLimits } from './limits.js';
import { type TranscriptCache } from './transcript-cache.js';

/** What the activities close over: built once per worker by `createActivities`. */
export interface ActivityDependencies {
  agents: AgentRegistry;
  providers: ProviderRegistry;
  transcripts: TranscriptCache;
  runTools: RunToolsCache;
  /** Tool routing's per-worker state: search strategies and the embedding cache, shared by every run. */
  toolSearch: ToolSearchService;
  /** Bounds on what models and tools hand the runtime. */
  limits: WorkerLimits;
  /** Streaming tools report progress to their run at most this often. */
  progressIntervalMs: number;
  /** The worker's MCP connections and recorded listings. */
  mcp: McpRuntime;
  /** How long an MCP tool activity holds its call open waiting for a person before the run waits instead. */
  elicitationHoldMs: number;
  /** Whether a namespace has durable-agent's search attributes (asked once per namespace). */
  searchAttributes: SearchAttributesCheck;
  /** The worker's live stream transport (Redis), when it has one: runs described here publish live items to it. */
  live: LiveStream | undefined;
}

/** The run's tools: the agent's own, resolved for the run, plus the MCP tools of the listings the run recorded. */
export async function runToolSet(
  deps: ActivityDependencies,
  agent: Agent,
  ref: RunRef,
  run: RunContextData,
  mcp: McpListingRef[] | undefined,
): Promise<ToolManager> {
  return await deps.mcp.runTools(agent, ref, await deps.runTools.get(agent, ref, run), mcp);
}

/**
 * Looks an agent up, failing the activity without retries when the worker does not host it: a retry reaches the
 * same worker (the run's first lookup is a local activity). The message names the worker's task queue and agents,
 * since the usual cause is another project's worker on the same queue.
 */
export function requireAgent(deps: ActivityDependencies, name: string): Agent {
  try {
    return deps.agents.get(name);
  } catch (err) {
    const error = AgentNotFoundError.isInstance(err)
      ? new AgentNotFoundError(name, err.knownAgents, { taskQueue: activityTaskQueue() })
      : err;
    throw ApplicationFailure.create({
      type: FailureType.AgentNotFound,
      message: error instanceof Error ? error.message : String(error),
      nonRetryable: true,
    });
  }
}

/** The task queue of the running activity's worker; undefined outside an activity. */
function activityTaskQueue(): string | undefined {
  try {
    return Context.current().info.taskQueue;
  } catch {
    return undefined;
  }
}

/** The run's context as tools and hooks see it. */
export function toToolContext(run: RunContextData): {
  userId?: string;
  conversationId?: string;
  context: Map<string, unknown>;
} {
  return {
    ...(run.userId !== undefined ? { userId: run.userId } : {}),
    ...(run.conversationId !== undefined ? { conversationId: run.conversationId } : {}),
    context: new Map(Object.entries(run.context)),
  };
}

/**
 * Per-run tool sets. An agent's `tools` may be a function of the run's context; it is resolved once per run and
 * worker and reused by every model call and tool execution of that run.
 */
export class RunToolsCache {
  // The least recently used run's tools go first.
  private readonly runs: LRUCache<string, Promise<ToolManager>>;

  constructor(maxRuns = 500) {
    this.runs = new LRUCache({ max: maxRuns });
  }

  get(agent: Agent, ref: RunRef, run: RunContextData): Promise<ToolManager> {
    const key = runToolsKey(agent, ref);
    const cached = this.runs.get(key);
    if (cached) return cached;
    const tools = agent.resolveRunTools(toToolContext(run));
    // A failed resolution is not cached: the activity's retry tries again.
    tools.catch(() => {
      if (this.runs.peek(key) === tools) this.runs.delete(key);
    });
    this.runs.set(key, tools);
    return tools;
  }

  /** Drops a run's tools (it waits for a person; its next activity resolves them again). */
  forget(agent: Agent, ref: RunRef): void {
    this.runs.delete(runToolsKey(agent, ref));
  }
}

function runToolsKey(agent: Agent, ref: RunRef): string {
  return `${agent.name}/${ref.workflowId}/${ref.runId}`;
}
