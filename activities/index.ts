import type { AgentRegistry } from '../src/agent/registry.js';
import { ProviderRegistry } from '../src/models/provider-registry.js';
import { ToolSearchService } from '../src/routing/tool-search-service.js';
import { RunToolsCache, type ActivityDependencies } from '../src/runtime/dependencies.js';
import { createAuthorizeDecision } from './authorize-decision.js';
import {
  createAuthorizeConversationMessage,
  createConversationTurnMessages,
  createDescribeConversation,
  createSummarizeConversation,
} from './conversation.js';
import { createDescribeAgent } from './describe-agent.js';
import { createExecuteTool } from './execute-tool.js';
import { createGenerate } from './generate.js';
import { createPublishLiveEvents } from './publish-live-events.js';
import { resolveLiveStream } from '../src/live/live-stream-config.js';
import { resolveWorkerLimits } from '../src/runtime/limits.js';
import type { AgentRuntimeOptions } from '../src/runtime/options.js';
import { createMcpListTools } from './mcp-list-tools.js';
import { McpRuntime } from '../src/runtime/mcp-runtime.js';
import { SearchAttributesCheck } from '../src/runtime/search-attributes-check.js';
import { createEmbedBatch, createRankTools } from './search-tools.js';
import { TranscriptCache } from '../src/runtime/transcript-cache.js';

/** Options of `createActivities`: the agents, and how the worker runs them. */
export interface CreateActivitiesOptions extends AgentRuntimeOptions {
  agents: AgentRegistry;
}

/**
 * Builds the worker's activities. They close over the agent registry, the model providers and the per-worker
 * caches; their type is what the workflow proxies (as a type only).
 */
export function createActivities(options: CreateActivitiesOptions) {
  const providers = options.providers ?? new ProviderRegistry();
  const deps: ActivityDependencies = {
    agents: options.agents,
    providers,
    transcripts: new TranscriptCache(options.transcriptCache),
    runTools: new RunToolsCache(),
    // One per worker: every run's searches share its strategies and embedding cache.
    toolSearch: new ToolSearchService({ providers }),
    limits: resolveWorkerLimits(options.limits),
    progressIntervalMs: options.progressIntervalMs ?? 500,
    mcp: options.mcp ?? new McpRuntime(),
    elicitationHoldMs: options.elicitationHoldMs ?? 60_000,
    searchAttributes: new SearchAttributesCheck(options.searchAttributes !== false),
    live: resolveLiveStream(options.liveStream),
  };
  return {
    describeAgent: createDescribeAgent(deps),
    authorizeDecision: createAuthorizeDecision(deps),
    generate: createGenerate(deps),
    executeTool: createExecuteTool(deps),
    mcpListTools: createMcpListTools(deps),
    rankTools: createRankTools(deps),
    embedBatch: createEmbedBatch(deps),
    conversationTurnMessages: createConversationTurnMessages(),
    summarizeConversation: createSummarizeConversation(deps),
    authorizeConversationMessage: createAuthorizeConversationMessage(deps),
    describeConversation: createDescribeConversation(deps),
    publishLiveEvents: createPublishLiveEvents(deps),
  };
}
