import type { AgentRegistry } from '../src/agent/registry.js';
import type { ProviderRegistry } from '../src/models/provider-registry.js';
import { RunToolsCache, type ActivityDependencies } from './dependencies.js';
import { createDescribeAgent } from './describe-agent.js';
import { createExecuteTool } from './execute-tool.js';
import { createGenerate } from './generate.js';
import { TranscriptCache } from './transcripts.js';

/** Options of `createActivities`. */
export interface CreateActivitiesOptions {
  agents: AgentRegistry;
  providers: ProviderRegistry;
  /** Tool outputs larger than this (JSON bytes) reach the model as an error. Default 1.5 MB, under Temporal's 2 MB. */
  maxToolOutputBytes?: number;
  /** Streaming tools report progress to their run at most this often (signals in history). Default 500 ms. */
  progressIntervalMs?: number;
}

/**
 * Builds the worker's activities. They close over the agent registry, the model providers and the per-worker
 * caches; their type is what the workflow proxies (as a type only).
 */
export function createActivities(options: CreateActivitiesOptions) {
  const deps: ActivityDependencies = {
    agents: options.agents,
    providers: options.providers,
    transcripts: new TranscriptCache(),
    runTools: new RunToolsCache(),
    maxToolOutputBytes: options.maxToolOutputBytes ?? 1_500_000,
    progressIntervalMs: options.progressIntervalMs ?? 500,
  };
  return {
    describeAgent: createDescribeAgent(deps),
    generate: createGenerate(deps),
    executeTool: createExecuteTool(deps),
  };
}
