// `durable-agent/client`: start, watch, approve and cancel runs from any process. Loads no native Temporal worker.
export { AgentClient, type AgentClientOptions, type StartRunOptions } from './agent-client.js';
export {
  AgentRun,
  type AgentRunResult,
  type DecisionOptions,
  type RunToolCall,
  type RunToolResult,
} from './agent-run.js';
export { RunRequestRejectedError } from './errors/run-request-rejected-error.js';
export { ToolDeniedError, isToolDeniedError } from '../tool/errors/tool-denied-error.js';
export {
  createPayloadCodec,
  payloadCodecFromEnv,
  PayloadCodecError,
  isPayloadCodecError,
  DurableAgentPayloadCodec,
  type PayloadCodecOptions,
} from '../codec/index.js';
export {
  FailureType,
  TERMINAL_EVENT_TYPES,
  type AgentRunOutput,
  type ApprovalRecord,
  type JsonValue,
  type PendingApproval,
  type PendingToolResult,
  type RunEvent,
  type RunState,
  type RunStatus,
  type RunningTool,
  type StepSummary,
  type StopReason,
  type ToolProgress,
  type TranscriptMessage,
  type Usage,
} from '../protocol/index.js';
