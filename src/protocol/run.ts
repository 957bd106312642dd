import type { AgentDescription } from './descriptor.js';
import type { JsonValue } from './json.js';
import type { TranscriptMessage } from './messages.js';
import type { Usage } from './activity-io.js';
import type { RunEvent } from './events.js';
import type { McpListingRecord } from './activity-io.js';
import type { ElicitationRecord, PendingElicitation } from './elicitation.js';
import type { RunToolRoutingOverride } from './routing.js';
import type { RunStreamContinuation } from './run-stream.js';

/** Input of the `agentRun` workflow. Stored in history: no secrets here. */
export interface AgentRunInput {
  agentName: string;
  /** The run's input. After the first execution it is `''`: the transcript carries it (see `continuation`). */
  input: string | TranscriptMessage[];
  userId?: string;
  conversationId?: string;
  context?: Record<string, JsonValue>;
  /** Overrides the agent's `maxSteps` for this run. */
  maxSteps?: number;
  /** Overrides the agent's approval timeout for this run, in ms. */
  approvalTimeoutMs?: number;
  /** Overrides how long an MCP question waits for a person in this run, in ms. */
  elicitationTimeoutMs?: number;
  /** Continue-as-new after this many history events (Temporal's own suggestion also applies). */
  historyEventBudget?: number;
  /**
   * Tool routing for this run, over the agent's: `false` offers the agent's tools directly, `true` routes with the
   * agent's settings (or the defaults), an object replaces the agent's fields (tools by name). See docs/tool-routing.md.
   */
  toolRouting?: RunToolRoutingOverride;
  /**
   * Model streaming for this run, over the agent's `streaming` option: `false` publishes no model deltas, `true`
   * streams with the agent's interval, an object with `intervalMs` streams at that interval (ms, clamped to
   * 20..5,000); an object without it leaves streaming on or off as the agent says. A step publishes only
   * while someone watches the run's stream; `watched: true` says the starter watches from the start (as
   * `AgentClient.streamText` does), so the first step publishes its first piece at once instead of first finding a
   * watcher. See docs/durable-runs.md.
   */
  streaming?: boolean | { intervalMs?: number; watched?: boolean };
  /** Set by the workflow itself when it continues as new. */
  continuation?: RunContinuation;
}

/** What a run carries into its next execution when it continues as new. */
export interface RunContinuation {
  description: AgentDescription;
  messages: TranscriptMessage[];
  events: RunEvent[];
  steps: StepSummary[];
  usage: Usage;
  approvals: ApprovalRecord[];
  /** Approval decisions received before the run asked for them. */
  earlyApprovals?: ApprovalDecision[];
  /** Client-side tool results received before the run asked for them. */
  earlyToolResults?: ToolResultSubmission[];
  /** The MCP listings in effect. */
  mcpListings?: McpListingRecord[];
  /** Answers to MCP questions, kept so a re-issued call is answered from the record. */
  elicitations?: ElicitationRecord[];
  /** Tool routing state: names `searchTools` returned so far, embedding models whose pool was warmed. */
  routing?: RoutingContinuation;
  /**
   * The run's stream (protocol 4, since 0.4.0): its bounded log, offsets and publishers. Present exactly when the
   * run has a stream, so a run started before keeps its event query and progress signal in every execution.
   */
  stream?: RunStreamContinuation;
  generation: number;
  /**
   * The run's protocol (`workflows/protocol.ts`), carried so every execution follows the one its first execution
   * decided. Continuations written by v0.1.0–v0.3.0 code lack it: the next execution decides it from its history.
   */
  protocol?: number;
}

/** What a routed run carries into its next execution. */
export interface RoutingContinuation {
  searched: string[];
  warmedEmbeddings?: string[];
}

/** One step of a run, without its messages (those are in the transcript). */
export interface StepSummary {
  step: number;
  finishReason: string;
  usage: Usage;
  toolCalls: { toolCallId: string; toolName: string; outcome: ToolCallOutcome }[];
}

/** How a tool call of a step ended. */
export type ToolCallOutcome = 'ok' | 'error' | 'invalid' | 'denied' | 'client-result';

/** A human decision on a tool call, kept in the result and the events. */
export interface ApprovalRecord {
  toolCallId: string;
  toolName: string;
  approved: boolean;
  reason?: string;
  /**
   * Who decided: as the decision claimed it, unless the agent's `authorizeDecision` hook vouched for it (then
   * `approverVerified` is true and this is the identity the hook returned).
   */
  approver?: string;
  approverVerified?: boolean;
  timedOut?: boolean;
  requestedAt: string;
  decidedAt: string;
}

/** Why the loop stopped. */
export type StopReason = 'completed' | 'max-steps';

/** The `agentRun` workflow's return value. Messages are read through the transcript query, not duplicated here. */
export interface AgentRunOutput {
  version: 1;
  text: string;
  finishReason: string;
  stopReason: StopReason;
  steps: StepSummary[];
  usage: Usage;
  approvals: ApprovalRecord[];
  messageCount: number;
}

/** A tool call waiting for a human decision. */
export interface PendingApproval {
  toolCallId: string;
  toolName: string;
  /** The call's arguments (a bounded preview when large: the full arguments are in the transcript). */
  args: JsonValue;
  /**
   * Binds a decision to this request: a decision must echo it. Revealed only here and in the `approval-requested`
   * event, so no decision can approve a call its sender never saw. Absent for runs started before v0.2.0.
   */
  token?: string;
  step: number;
  requestedAt: string;
  /** When the wait times out (ISO), if the policy has a timeout. */
  expiresAt?: string;
}

/** A client-side tool call waiting for `submitToolResult`. */
export interface PendingToolResult {
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  step: number;
  /** When the run asked for it (ISO; absent in answers of workers from before 0.4.0). */
  requestedAt?: string;
}

/** A tool activity in flight, with the latest value a streaming tool yielded. */
export interface RunningTool {
  toolCallId: string;
  toolName: string;
  step: number;
  startedAt: string;
  progress?: ToolProgress;
}

/** One yield of a streaming tool, as reported to the run. `seq` counts from 1 and never repeats. */
export interface ToolProgress {
  toolCallId: string;
  seq: number;
  value: JsonValue;
}

/** Status of a run as its state query reports it. */
export type RunStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

/**
 * One MCP server of the run as its listing left it: `listed` (with the number of tools the run may use and of
 * entries skipped), or `failed` with the reason and message — a server skipped by the worker's circuit breaker
 * says so in its message (see docs/mcp.md, "Hung and failing servers").
 */
export type McpServerStatus =
  | { server: string; status: 'listed'; tools: number; skipped: number }
  | { server: string; status: 'failed'; reason: string; message: string }
  /** Still listing after the listing budget: the run went on without it (its tools come when it answers). */
  | { server: string; status: 'listing' };

/** Answer of the state query. */
export interface RunState {
  status: RunStatus;
  /** Steps completed so far (a pending approval's `step` is the step in progress, one more). */
  step: number;
  usage: Usage;
  pendingApprovals: PendingApproval[];
  pendingToolResults: PendingToolResult[];
  pendingElicitations: PendingElicitation[];
  runningTools: RunningTool[];
  messageCount: number;
  lastEventSeq: number;
  /** The run's MCP servers (absent in answers of workers from before 0.4.0). */
  mcpServers?: McpServerStatus[];
  /**
   * The `userId` and `context` (a preview) the starter stated: claims of whoever started the run, not verified
   * identities (absent in answers of workers from before 0.4.0).
   */
  claims?: { userId?: string; context: JsonValue };
}

/** An approval decision as sent by a client. */
export interface ApprovalDecision {
  toolCallId: string;
  approved: boolean;
  /** The pending request's token (see {@link PendingApproval.token}). `run.approve()` reads and echoes it. */
  token?: string;
  reason?: string;
  /** Who decides, as claimed by the sender (see {@link ApprovalRecord.approver}). */
  approver?: string;
  /**
   * Evidence of the decider's identity for the agent's `authorizeDecision` hook (for example a signed, short-lived
   * assertion). Stored in history: never put a secret here.
   */
  identity?: JsonValue;
  /**
   * The decider is not the run's user (an inbox's reviewer): refuse the decision (`Approval.NotAuthorized`) unless the
   * agent's `authorizeDecision` hook checks it. Updates only; a signal ignores it.
   */
  requireAuthorization?: boolean;
}

/** A client-side tool's result as sent by a client. */
export interface ToolResultSubmission {
  toolCallId: string;
  output: JsonValue;
  isError?: boolean;
}

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** Adds two usages. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
