import type { LiveStreamOption } from '../live/live-stream-config.js';
import type { ProviderRegistry } from '../models/provider-registry.js';
import type { WorkerLimits } from './limits.js';
import type { McpRuntime } from './mcp-runtime.js';
import type { TranscriptCacheLimits } from './transcript-cache.js';

/**
 * How a worker runs agents: its model providers, its bounds and caches, and its MCP connections. Declared once;
 * `createActivities`, `DurableAgentPlugin` and `createAgentWorker` each take these beside their own options.
 */
export interface AgentRuntimeOptions {
  /** Model providers; default: OpenAI from the environment plus the offline stand-in. */
  providers?: ProviderRegistry;
  /** Bounds on what models and tools hand the runtime (docs/limits.md). */
  limits?: Partial<WorkerLimits>;
  /**
   * How long an MCP tool call is held open while its server waits for a person's answer; then the activity ends
   * and the run waits (not counted against the tool's timeouts) and re-issues the call. Default 60 s.
   */
  elicitationHoldMs?: number;
  /**
   * Bounds of the worker's transcript cache (runs, bytes); what it lacks, an activity reads through the run's
   * query. `{ maxBytes: 1 }` caches nothing.
   */
  transcriptCache?: TranscriptCacheLimits;
  /** Streaming tools report progress to their run (signals in history) at most this often. Default 500 ms. */
  progressIntervalMs?: number;
  /**
   * The worker's MCP connections. Default: a pool of the plugin's own, closed when the worker stops. A runtime
   * given here is the caller's to close (`mcp.close()`), so several workers may share one.
   */
  mcp?: McpRuntime;
  /**
   * Whether runs publish durable-agent's search attributes (`DurableAgentWaiting`, …: docs/web.md, "Finding what
   * waits"), which inboxes query. Default `true`: when the run's namespace has them all, as the worker finds by asking
   * Temporal once (a namespace without them, or a server that does not answer, gets none, and the worker says how to
   * create them). `false`: never.
   */
  searchAttributes?: boolean;
  /**
   * Where runs' live items (model deltas, tool progress, run events) travel: `'workflow'`, the run's own Workflow
   * Streams log (the default when `DURABLE_AGENT_REDIS_URL` is not set), or Redis Streams (`{ url, key }`, or a
   * transport), where watchers cost the run nothing (docs/durable-runs.md, "The stream on Redis"). Default: Redis
   * when `DURABLE_AGENT_REDIS_URL` is set (with `DURABLE_AGENT_STREAM_KEY`), else `'workflow'`.
   */
  liveStream?: LiveStreamOption;
}

// Every key of `AgentRuntimeOptions`, checked by the compiler both ways (a new option must be listed here).
const RUNTIME_OPTION_KEYS = {
  providers: true,
  limits: true,
  elicitationHoldMs: true,
  transcriptCache: true,
  progressIntervalMs: true,
  mcp: true,
  searchAttributes: true,
  liveStream: true,
} as const satisfies Record<keyof AgentRuntimeOptions, true>;

/** The runtime options of a larger options object (a plugin's, a worker's), without its other fields. */
export function runtimeOptionsOf(options: AgentRuntimeOptions): AgentRuntimeOptions {
  const picked: Partial<Record<keyof AgentRuntimeOptions, unknown>> = {};
  for (const key of Object.keys(RUNTIME_OPTION_KEYS) as (keyof AgentRuntimeOptions)[]) {
    if (options[key] !== undefined) picked[key] = options[key];
  }
  return picked as AgentRuntimeOptions;
}
