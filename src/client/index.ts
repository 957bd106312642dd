// `durable-agent/client`: start, watch, approve and cancel runs from any process. Loads no native Temporal worker.
export { AgentClient, type AgentClientOptions, type StartRunOptions, type StreamTextResult } from './agent-client.js';
export {
  FullStreamAssembler,
  TextStreamAssembler,
  toFullStream,
  toTextStream,
  type FullStreamPart,
} from './full-stream.js';
export {
  AgentRun,
  type AgentRunOptions,
  type AgentRunResult,
  type DecisionOptions,
  type ElicitationAnswerOptions,
  type RunToolCall,
  type RunToolResult,
} from './agent-run.js';
export { Conversation, ConversationTurn, type ConversationOptions, type SendOptions } from './conversation.js';
export {
  CONVERSATION_LIMITS,
  CONVERSATION_WORKFLOW,
  type ConversationCompaction,
  type ConversationHistoryPage,
  type ConversationLimits,
  type ConversationMessage,
  type ConversationState,
  type ConversationTurnOptions,
} from '../protocol/conversation.js';
export { type RunStreamOptions, type RunStreamPart } from './run-stream.js';
export { DEFAULT_REQUEST_TIMEOUT_MS } from './through-worker.js';
export { DurableAgentError, type DurableAgentErrorOptions } from '../errors/durable-agent-error.js';
export { NoWorkerError, type NoWorkerErrorDetails } from './errors/no-worker-error.js';
export { WorkerTimeoutError, type WorkerTimeoutErrorDetails } from './errors/worker-timeout-error.js';
export { RunRequestRejectedError } from './errors/run-request-rejected-error.js';
export { RunWithoutStreamError } from './errors/run-without-stream-error.js';
export { ToolDeniedError } from '../tool/errors/tool-denied-error.js';
export { RunFailedError, type RunFailedErrorDetails } from './errors/run-failed-error.js';
export * from '../connection/index.js';
export {
  createPayloadCodec,
  payloadCodecFromEnv,
  PayloadCodecError,
  DurableAgentPayloadCodec,
  type PayloadCodecOptions,
} from '../codec/index.js';
export {
  FailureType,
  RefusalCode,
  TERMINAL_EVENT_TYPES,
  type AgentRunOutput,
  type ApprovalRecord,
  type ElicitationContent,
  type ElicitationRecord,
  type JsonValue,
  type PendingApproval,
  type PendingElicitation,
  type PendingToolResult,
  SEARCH_ATTRIBUTES,
  userKey,
  type WaitingKind,
  type Refusal,
  type RunEvent,
  type RunState,
  type RunStatus,
  type RunningTool,
  type StepSummary,
  type StopReason,
  type StreamedProgress,
  type StreamedDeltas,
  type DeltaPart,
  type DeltaKind,
  type ToolProgress,
  type TranscriptMessage,
  type Usage,
} from '../protocol/index.js';
