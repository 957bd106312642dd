import type { AgentDescription, RunContextData, ToolActivityOptions } from './descriptor.js';
import type { JsonObject, JsonValue } from './json.js';
import type { ApprovalDecision, PendingApproval } from './run.js';
import type { ToolResultOutput, TranscriptMessage } from './messages.js';
import type { ToolCallRoute } from './routing.js';

/** Identifies the run whose transcript an activity reads (through the transcript query, not its input). */
export interface RunRef {
  workflowId: string;
  runId: string;
}

/** Input of `describeAgent`. */
export interface DescribeAgentInput {
  agentName: string;
  input: string | TranscriptMessage[];
  run: RunContextData;
}

export type DescribeAgentResult = AgentDescription;

/**
 * Input of `generate`, by the protocol of the run that wrote it (built in one place: `workflows/generate-input.ts`).
 * It carries a reference to the transcript and its length, never the messages: the activity reads them from a
 * worker-side cache or the run's transcript query, so history stays linear.
 */
export type GenerateInput = GenerateInputV4 | LegacyGenerateInput;

/** What every `generate` input carries. */
interface GenerateInputBase {
  agentName: string;
  run: RunRef;
  step: number;
  messageCount: number;
  /** The previous step's tool message, with executed results as references (see {@link TranscriptDelta}). */
  delta?: TranscriptDelta;
  /** The latest model response the run recorded, so a worker can tell whether its cached copy is that one. */
  mark?: TranscriptMark;
  /** The MCP listings the run recorded (by version): their tools are offered besides the agent's own. */
  mcp?: McpListingRef[];
}

/**
 * Written by runs on protocol 4 (since 0.4.0). The workflow takes a routed `callTool` target's arguments from the
 * model's call when its route carries none (see {@link ToolCallRoute}), so the activity may leave them out.
 */
export interface GenerateInputV4 extends GenerateInputBase {
  protocol: 4;
  /** The step streams its model call. Absent: the run or its agent turned streaming off. */
  stream?: GenerateStreaming;
}

/** How a step streams its model call (protocol 4). */
export interface GenerateStreaming {
  /**
   * The token this step's attempts tag their `deltas` publishes with (see `DeltaPublish`), so the run takes model
   * output only from its own step.
   */
  token: string;
  /** How often (ms) an attempt publishes its pieces after the first one. */
  intervalMs: number;
  /**
   * Someone polled the run's stream lately when the step began: publish at once. Either way an attempt publishes
   * only while someone watches (the run's `WATCHED_MEMO_KEY` memo is fresh); pieces written meanwhile go out when a
   * watcher comes.
   */
  watched: boolean;
  /**
   * The run's live stream is on Redis (its worker's `liveStream`): the id of that stream (the run's first execution).
   * The attempt publishes every piece there, watched or not, and nothing to the run.
   */
  live?: string;
}

/**
 * Written by v0.1.0–v0.3.0 workflows, and by this code for runs on their protocols (`workflows/legacy/`): the model
 * call is never streamed.
 */
export interface LegacyGenerateInput extends GenerateInputBase {
  protocol?: undefined;
  /**
   * Written by v0.1.0 workflows, which offered the model the tools recorded at the start of the run. Ignored: the
   * worker's current tools are offered (docs/upgrading.md, "Tool definitions are code").
   */
  toolNames?: string[];
  /**
   * Set by this code's workflows (whatever the run's protocol), which take a routed `callTool` target's arguments
   * from the model's call when its route carries none. Without it (v0.1.0–v0.3.0 workflows) every route carries them.
   */
  argsFromCall?: true;
}

/** A server's tool listing as a run recorded it, by content version (equal versions list equal tools). */
export interface McpListingRef {
  server: string;
  version: string;
}

/** One remote tool of a recorded listing (plain JSON; tools are rebuilt from it on any worker). */
export interface McpToolRecord {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/**
 * A server's listing as recorded in history by `mcpListTools`. `version` is the hash of what was recorded (the
 * tools this run may use, after authorization filtering and bounds), `sourceVersion` the hash of what the server
 * listed (how a worker tells that the server's tools changed since).
 */
export interface McpListingRecord extends McpListingRef {
  sourceVersion?: string;
  tools: McpToolRecord[];
  /** Tools left out (too many, too large, unconvertible names), with the reason. */
  skipped: Array<{ name: string; reason: string }>;
}

/** Input of `mcpListTools`: one server of the run's agent. */
export interface McpListToolsInput {
  agentName: string;
  run: RunRef;
  server: string;
  /** The run's user and context, for an authorization that filters tools on discovery. */
  userId?: string;
  context: RunContextData['context'];
}

/** Output of `mcpListTools`: the listing, or why the server could not be listed (the run goes on without it). */
export type McpListToolsResult =
  | { version: 1; kind: 'listed'; listing: McpListingRecord }
  | { version: 1; kind: 'failed'; server: string; reason: string; message: string };

/** Where the run's latest recorded model response starts in the transcript, and which response it is. */
export interface TranscriptMark {
  at: number;
  responseId: string;
}

/** A tool result that an `executeTool` activity produced, referenced by its tool-call id instead of copied. */
export interface ToolResultRef {
  type: 'tool-result-ref';
  toolCallId: string;
  toolName: string;
  /** The recorded result's `outputId`: a worker holding another attempt's output does not use it. */
  outputId: string;
}

/**
 * The tool message the workflow appended at index `at`, so the worker's transcript cache can extend itself
 * without querying the run. Results that came from `executeTool` are references (the worker that ran the tool
 * kept them), so no tool output is recorded twice; small results made by the workflow itself (invalid calls,
 * denials, client-side results) are inline. A worker that lacks a referenced result falls back to the query.
 */
export interface TranscriptDelta {
  at: number;
  content: Array<
    | ToolResultRef
    | ToolResultInRun
    | { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolResultOutput }
  >;
}

/** A large result the workflow itself produced (a client-side result): read it from the run's transcript. */
export interface ToolResultInRun {
  type: 'tool-result-in-run';
  toolCallId: string;
  toolName: string;
}

/** Token usage, summed over steps in the result. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/**
 * A tool call of one step as the generate activity checked it against the worker's current tools. Its arguments
 * live in the assistant message. `activity` holds the tool's activity options (the agent's tool defaults merged
 * under the tool's own); calls recorded by v0.1.0 lack it and take the options from the recorded descriptors.
 * `route` marks a routed run's `searchTools` and `callTool` calls (see {@link ToolCallRoute}); for a `callTool`
 * call, approval, client-side flag and activity options are the target's.
 */
export type CheckedToolCall =
  | {
      toolCallId: string;
      toolName: string;
      status: 'valid';
      needsApproval: boolean;
      clientSide: boolean;
      activity?: ToolActivityOptions;
      route?: ToolCallRoute;
    }
  | { toolCallId: string; toolName: string; status: 'invalid'; error: string; route?: ToolCallRoute };

/** Output of `generate`: one model call. */
export interface GenerateResult {
  version: 1;
  /** Unique per attempt: tells the worker caches which response the run recorded. */
  responseId: string;
  /** Messages to append to the transcript (the assistant message). */
  messages: TranscriptMessage[];
  toolCalls: CheckedToolCall[];
  finishReason: string;
  usage: Usage;
  /** MCP servers whose recorded listing this worker knows to be out of date (`tools/list_changed`). */
  staleMcpServers?: string[];
}

/**
 * Input of `executeTool`, by the protocol of the run that wrote it (built in one place: `startToolCall` in
 * `workflows/tool-calls.ts`).
 */
export type ExecuteToolInput = ExecuteToolInputV4 | LegacyExecuteToolInput;

/** What every `executeTool` input carries. */
interface ExecuteToolInputBase {
  agentName: string;
  run: RunRef;
  step: number;
  /** Transcript length when the step's tools started, so a tool that reads the conversation sees it. */
  messageCount: number;
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  /** Stable across retries, unique per tool call and run. */
  idempotencyKey: string;
  /** See `GenerateInput`'s `mark`. */
  mark?: TranscriptMark;
  /** See `GenerateInput`'s `mcp`. */
  mcp?: McpListingRef[];
  /**
   * `'callTool'` when this call is a routed run's `callTool` target, as `generate` checked it against the run's
   * pool and recorded it in the call's route (`toolName` and `args` are the target's name and checked arguments):
   * the activity looks the target up in the run's pool, without resolving the run's routing again. Absent for a
   * direct call, and in inputs of workflows before 0.4.0 (their targets are looked up through the routing).
   */
  via?: 'callTool';
}

/** Written by runs on protocol 4 (since 0.4.0), which have a stream. */
export interface ExecuteToolInputV4 extends ExecuteToolInputBase {
  protocol: 4;
  /**
   * The capability the activity publishes its progress with, on the stream's `progress` topic. The workflow drops a
   * progress publish that does not carry the token of a running call.
   */
  progressToken: string;
  /** The run's live stream is on Redis: its id (the run's first execution). Progress is published there. */
  live?: string;
}

/**
 * Written by v0.1.0–v0.3.0 workflows, and by this code for runs on their protocols (`workflows/legacy/`): no stream,
 * so progress goes by the v0.3.0 progress signal.
 */
export interface LegacyExecuteToolInput extends ExecuteToolInputBase {
  protocol?: undefined;
}

/**
 * Output of `executeTool`. `modelOutput` is present only when the tool's `toModelOutput` made it differ from the
 * default encoding, so a large output is recorded once.
 */
export type ExecuteToolResult =
  | {
      version: 1;
      kind: 'ok' | 'error';
      output: JsonValue;
      modelOutput?: ToolResultOutput;
      /** Unique per attempt: tells the worker caches which output the run recorded. */
      outputId: string;
      /** MCP servers whose tools changed during the call (`tools/list_changed`): re-listed before the next step. */
      staleMcpServers?: string[];
    }
  | { version: 1; kind: 'denied'; error: ToolDeniedData }
  /**
   * An MCP server asked a person something, and nobody answered while the activity held the call open: the run
   * waits for the answer (not counted against the tool's timeouts), then runs the call again; the server's repeated
   * question is answered from the record.
   */
  | { version: 1; kind: 'elicitation-pending'; elicitationId: string };

/** A `ToolDeniedError` as data, so it can end the run with code and HTTP status intact. */
export interface ToolDeniedData {
  toolName: string;
  message: string;
  code: string;
  httpStatus: number;
}

/** A slice of a run's transcript, answered by the transcript query. */
export interface TranscriptSlice {
  runId: string;
  from: number;
  /** Messages in the transcript; the slice may stop short of `to` (about 1 MB per answer): ask again from there. */
  total: number;
  messages: TranscriptMessage[];
  /** Set instead of `messages` when message `from` alone is larger than a page: some of its content parts. */
  piece?: { role: TranscriptMessage['role']; fromPart: number; parts: unknown[]; totalParts: number };
  run: RunContextData;
}

/** The run a decision is about, as the agent's `authorizeDecision` hook sees it. */
export interface ApprovalRunInfo extends RunRef, RunContextData {
  agentName: string;
}

/** Input of the `authorizeDecision` local activity. */
export interface AuthorizeDecisionInput {
  agentName: string;
  decision: ApprovalDecision;
  request: PendingApproval;
  run: ApprovalRunInfo;
}

/** The agent's verdict on a decision: refused decisions leave the request pending. */
export interface AuthorizeDecisionResult {
  allowed: boolean;
  /** Why it was refused (shown to the decider and in the `approval-refused` event). */
  reason?: string;
  /** The decider's identity as the hook verified it; recorded instead of the claimed `approver`. */
  approver?: string;
}
