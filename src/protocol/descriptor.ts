import type { JsonObject, JsonValue } from './json.js';
import type { RunToolRoutingOverride, ToolRoutingDescription } from './routing.js';

/** Activity options a tool may set for its own `executeTool` activity. Durations are ms or strings like `'30s'`. */
export interface ToolActivityOptions {
  startToCloseTimeout?: string | number;
  scheduleToCloseTimeout?: string | number;
  heartbeatTimeout?: string | number;
  retry?: {
    maximumAttempts?: number;
    initialInterval?: string | number;
    backoffCoefficient?: number;
    maximumInterval?: string | number;
    nonRetryableErrorTypes?: string[];
  };
  /**
   * Run the tool's activity on another task queue (workers with a GPU, say). It then loses eager dispatch: each call
   * waits for a task round trip through the server instead of starting on this worker at once.
   */
  taskQueue?: string;
  /**
   * Run the tool as a local activity: inside the run's workflow task on the worker that runs it, with no task round
   * trip (about a third of a short step's time). The price: no heartbeats, so no checkpoints or progress (streaming
   * tools are refused) and slower cancellation (it reaches the tool at the next workflow task heartbeat, up to ~10 s).
   * For short tools only; refused for streaming tools, tools needing approval and client-side tools.
   */
  local?: boolean;
}

/**
 * What is known about one tool, as plain JSON. v0.1.0 recorded these for every tool of a run in its
 * {@link AgentDescription}; since v0.2.0 the description no longer carries them (tool definitions are code: the
 * worker's current tools govern each step, see docs/upgrading.md) and the type describes tools to people.
 */
export interface ToolDescriptor {
  name: string;
  description: string;
  kind: 'user-defined' | 'provider';
  /** JSON Schema of the arguments (absent for provider tools). */
  inputSchema?: JsonObject;
  /** No `execute`: the run pauses until the caller submits the result. */
  clientSide: boolean;
  /** `'dynamic'` means a function decides per call; the generate activity evaluates it. */
  needsApproval: boolean | 'dynamic';
  activity?: ToolActivityOptions;
  tags?: string[];
}

/** Approval policy of an agent or a run. */
export interface ApprovalPolicy {
  /** How long a pending approval waits before it is denied, in ms. Absent: wait forever. */
  timeoutMs?: number;
  /**
   * Keep decisions that arrive before their request (bounded in number). Off by default: a decision must answer a
   * request its sender saw (it echoes the request's token).
   */
  earlyDecisions?: boolean;
  /** The agent has an `authorizeDecision` hook: each decision is checked by it (a local activity) before it applies. */
  authorize?: boolean;
}

/** Activity options for the model call of each step. */
export interface GenerateActivityOptions {
  startToCloseTimeout?: string | number;
  heartbeatTimeout?: string | number;
  retry?: ToolActivityOptions['retry'];
}

/**
 * What the workflow branches on for one run, fetched once by `describeAgent` and recorded in history: the system
 * prompt, the step budget, the approval policy and activity options. Versioned so that old histories still decode:
 * version 1 (v0.1.0) also recorded every tool's descriptor; version 2 does not, because the tools of each step come
 * from the worker (the `generate` activity reports each call's approval, client-side flag and activity options).
 */
export interface AgentDescription {
  version: 1 | 2;
  agentName: string;
  systemPrompt: string;
  /** Version 1 only: the tools as recorded at the start of the run. */
  tools?: ToolDescriptor[];
  maxSteps: number;
  /** Tool activities of one step that run at once (version 2; default `DEFAULT_TOOL_CONCURRENCY`). */
  toolConcurrency?: number;
  approval: ApprovalPolicy;
  generateActivity?: GenerateActivityOptions;
  /** Version 1 only (version 2 merges it into each checked call): defaults for every tool activity. */
  toolActivity?: ToolActivityOptions;
  /** A retriever failure while building the system prompt; the run goes on without the context. */
  retrieverError?: string;
  /** The agent's MCP servers (listed once per run by `mcpListTools`), and how long a question waits for a person. */
  mcp?: {
    servers: string[];
    elicitationTimeoutMs?: number;
    /** How long the first model call waits for the listings (ms; `MCP_LIST_BUDGET_MS` when absent). */
    listBudgetMs?: number;
  };
  /** The run's tool routing when the agent or the run configures it (version 2; absent: no routing). */
  routing?: ToolRoutingDescription;
  /**
   * Since v0.3.0: the worker that described the agent cached the run's first messages under this id, so the first
   * model call needs no transcript query. The workflow echoes it in that call's `mark` (position 0): a worker whose
   * copy came from another attempt of `describeAgent` (a retriever that answered differently) reads the run instead.
   */
  seedId?: string;
  /**
   * Since 0.4.0: the agent's `streaming` option. `false`: its steps are not streamed; an object: the batch interval.
   * Absent (the default, and descriptions recorded before): streamed with the default interval.
   */
  streaming?: false | { intervalMs?: number };
  /**
   * Since 0.4.0: the worker found durable-agent's search attributes (`SEARCH_ATTRIBUTES`) in the run's namespace, so
   * the run may publish them (protocol 4). Absent: the run never upserts them, since upserting an attribute a
   * namespace lacks fails every workflow task of the run.
   */
  searchAttributes?: true;
  /**
   * Since 0.4.0: the worker that described the agent publishes live items to Redis (its `liveStream` option or
   * `DURABLE_AGENT_REDIS_URL`), so the run's steps, tool calls and events go there instead of its Workflow Streams
   * log (which then holds its events only). Recorded, so every execution of the run keeps the choice.
   */
  liveStream?: 'redis';
}

/** The run-scoped data given to tools, hooks and approval functions. Serializable: it is stored in history. */
export interface RunContextData {
  userId?: string;
  conversationId?: string;
  context: Record<string, JsonValue>;
  /**
   * The run's routing override (`AgentRunInput.toolRouting`). Activities read it with the transcript, so it is
   * recorded once (in the run's input) rather than in every activity input; tools do not see it.
   */
  toolRouting?: RunToolRoutingOverride;
}

/** An agent's tool activity defaults merged under a tool's own options (retry policies merged field by field). */
export function mergeToolActivity(
  defaults: ToolActivityOptions | undefined,
  own: ToolActivityOptions | undefined,
): ToolActivityOptions {
  const retry = defaults?.retry || own?.retry ? { retry: { ...defaults?.retry, ...own?.retry } } : {};
  return { ...defaults, ...own, ...retry };
}
