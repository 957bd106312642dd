import type { JsonObject, JsonValue } from './json.js';

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
  taskQueue?: string;
}

/**
 * What the workflow knows about one tool: plain JSON, recorded in history once per run by `describeAgent`, so a
 * run replays the same after the worker's tool definitions change.
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
}

/** Activity options for the model call of each step. */
export interface GenerateActivityOptions {
  startToCloseTimeout?: string | number;
  heartbeatTimeout?: string | number;
  retry?: ToolActivityOptions['retry'];
}

/**
 * Everything the workflow needs to know about its agent for one run, fetched once by `describeAgent` and
 * recorded in history. Versioned so that old histories still decode.
 */
export interface AgentDescription {
  version: 1;
  agentName: string;
  systemPrompt: string;
  tools: ToolDescriptor[];
  maxSteps: number;
  approval: ApprovalPolicy;
  generateActivity?: GenerateActivityOptions;
  /** Defaults for every tool activity, merged under each tool's own `activity`. */
  toolActivity?: ToolActivityOptions;
  /** A retriever failure while building the system prompt; the run goes on without the context. */
  retrieverError?: string;
}

/** The run-scoped data given to tools, hooks and approval functions. Serializable: it is stored in history. */
export interface RunContextData {
  userId?: string;
  conversationId?: string;
  context: Record<string, JsonValue>;
}
