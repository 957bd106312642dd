import type { AgentRegistry } from '../src/agent/registry.js';
import type { ProviderRegistry } from '../src/models/provider-registry.js';
import { ToolSearchService } from '../src/routing/tool-search-service.js';
import { RunToolsCache, type ActivityDependencies } from '../src/worker/runtime/dependencies.js';
import { createAuthorizeDecision } from './authorize-decision.js';
import { createDescribeAgent } from './describe-agent.js';
import { createExecuteTool } from './execute-tool.js';
import { createGenerate } from './generate.js';
import { resolveWorkerLimits, type WorkerLimits } from '../src/worker/runtime/limits.js';
import { createMcpListTools } from './mcp-list-tools.js';
import { McpRuntime } from '../src/worker/runtime/mcp-runtime.js';
import { createEmbedBatch, createRankTools } from './search-tools.js';
import { TranscriptCache, type TranscriptCacheLimits } from '../src/worker/runtime/transcript-cache.js';

/** Options of `createActivities`. */
export interface CreateActivitiesOptions {
  agents: AgentRegistry;
  providers: ProviderRegistry;
  /** Bounds on what models and tools hand the runtime (docs/limits.md). */
  limits?: Partial<WorkerLimits>;
  /** Same as `limits.toolOutputBytes` (kept for compatibility). */
  maxToolOutputBytes?: number;
  /** Streaming tools report progress to their run at most this often (signals in history). Default 500 ms. */
  progressIntervalMs?: number;
  /** Bounds of the worker's transcript cache (what it lacks, an activity reads through the run's query). */
  transcriptCache?: TranscriptCacheLimits;
  /** The worker's MCP connections (default: a new pool, closed with `closeActivities`). */
  mcp?: McpRuntime;
  /**
   * How long an MCP tool call is held open while its server waits for a person's answer; then the activity ends and
   * the run waits (not counted against the tool's timeouts) and re-issues the call. Default 60 s.
   */
  elicitationHoldMs?: number;
}

/**
 * Builds the worker's activities. They close over the agent registry, the model providers and the per-worker
 * caches; their type is what the workflow proxies (as a type only).
 */
export function createActivities(options: CreateActivitiesOptions) {
  const deps: ActivityDependencies = {
    agents: options.agents,
    providers: options.providers,
    transcripts: new TranscriptCache(options.transcriptCache),
    runTools: new RunToolsCache(),
    // One per worker: every run's searches share its strategies and embedding cache.
    toolSearch: new ToolSearchService({ providers: options.providers }),
    limits: resolveWorkerLimits({
      ...(options.maxToolOutputBytes !== undefined ? { toolOutputBytes: options.maxToolOutputBytes } : {}),
      ...options.limits,
    }),
    progressIntervalMs: options.progressIntervalMs ?? 500,
    mcp: options.mcp ?? new McpRuntime(),
    elicitationHoldMs: options.elicitationHoldMs ?? 60_000,
  };
  return {
    describeAgent: createDescribeAgent(deps),
    authorizeDecision: createAuthorizeDecision(deps),
    generate: createGenerate(deps),
    executeTool: createExecuteTool(deps),
    mcpListTools: createMcpListTools(deps),
    rankTools: createRankTools(deps),
    embedBatch: createEmbedBatch(deps),
  };
}
