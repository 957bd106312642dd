// The package's public surface: a flat list of re-exports, one line per module.
export { createConsoleLogger, getGlobalLogger, setGlobalLogger, type LogLevel, type Logger } from './logger.js';

export {
  Tool,
  createTool,
  isUserDefinedTool,
  tool,
  type AnyTool,
  type OperationContext,
  type ProviderOptions,
  type ToolActivityOptions,
  type ToolApprovalContext,
  type ToolCallContext,
  type ToolCheckpoint,
  type ToolExecuteOptions,
  type ToolExecutionResult,
  type ToolHookOnEndArgs,
  type ToolHookOnEndResult,
  type ToolHookOnStartArgs,
  type ToolHooks,
  type ToolMcpAnnotations,
  type ToolNeedsApprovalFunction,
  type ToolOptions,
  type ToolResultOutput,
} from './tool/tool.js';
export {
  isToolSchema,
  isZodSchema,
  toJsonSchema,
  validateSchema,
  type InferSchemaInput,
  type InferSchemaOutput,
  type SchemaCheck,
  type StandardSchemaLike,
  type ToolSchema,
} from './tool/schema.js';
export {
  createToolkit,
  isToolkit,
  type ToolItem,
  type Toolkit,
  type ToolkitItem,
  type ToolkitOptions,
} from './tool/toolkit.js';
export { isProviderTool, providerToolName, type ProviderTool } from './tool/provider-tool.js';
export { fromAiSdkSchema, isAiSdkTool, wrapAiSdkTool, type NamedAiSdkTool } from './tool/ai-sdk-tool.js';
export { normalizeTool, type RegisteredTool } from './tool/normalize-tool.js';
export {
  ToolManager,
  type RegisteredToolkit,
  type ToolApiEntry,
  type ToolExecuteFactory,
} from './tool/tool-manager.js';
export { describeTool, describeTools, type FullToolDescriptor } from './tool/descriptor.js';
export { checkToolCall, type ToolCallCheck, type ToolLookup } from './tool/check-tool-call.js';
export { runToolPipeline, type RunToolPipelineInput, type ToolPipelineOutcome } from './tool/pipeline.js';
export type { AgentRef, AgentToolHooks, OnToolEndArgs, OnToolErrorArgs, OnToolStartArgs } from './tool/agent-hooks.js';
export { buildToolErrorResult, type ToolErrorResult } from './tool/error-result.js';
export { encodeDefault, encodeToolError, encodeToolOutput } from './tool/model-output.js';
export { validateToolOutput } from './tool/validate-output.js';
export { evaluateNeedsApproval } from './tool/approval.js';
export { createToolExecuteOptions, type ToolExecuteOptionsInit } from './tool/execute-options.js';
export { toJsonValue } from './tool/json-safe.js';
export { ClientHTTPError, isClientHTTPError } from './tool/errors/client-http-error.js';
export {
  ToolDeniedError,
  isToolDeniedError,
  type ToolDeniedCode,
  type ToolDeniedErrorOptions,
} from './tool/errors/tool-denied-error.js';

export { createReasoningTools } from './tool/reasoning/create-reasoning-tools.js';
export { createAnalyzeTool, createThinkTool } from './tool/reasoning/tools.js';
export { DEFAULT_REASONING_FEW_SHOT_EXAMPLES, DEFAULT_REASONING_INSTRUCTIONS } from './tool/reasoning/instructions.js';
export { NextAction, analyzeParameters, thinkParameters, type ReasoningToolsOptions } from './tool/reasoning/types.js';

export { BaseRetriever } from './tool/retriever/base-retriever.js';
export { createRetrieverTool, type RetrieverToolOptions } from './tool/retriever/create-retriever-tool.js';
export {
  DEFAULT_RETRIEVER_TOOL_DESCRIPTION,
  DEFAULT_RETRIEVER_TOOL_NAME,
  type RetrieveOptions,
  type Retriever,
  type RetrieverOptions,
} from './tool/retriever/types.js';

export { Agent, type BuildSystemPromptInput, type BuiltSystemPrompt } from './agent/agent.js';
export { AgentRegistry } from './agent/registry.js';
export { AgentNotFoundError, isAgentNotFoundError } from './agent/agent-not-found-error.js';
export { mergeRunTools } from './agent/run-tools.js';
export { MARKDOWN_INSTRUCTION, assembleSystemPrompt, type SystemPromptParts } from './agent/system-prompt.js';
export type {
  AgentApprovalOptions,
  AgentHooks,
  AgentInstructions,
  AgentOptions,
  AgentRunContext,
  DynamicTools,
  ToolRoutingConfig,
} from './agent/types.js';

export * from './models/index.js';

// The workflow-safe protocol: run input/output, events, state, descriptors, constants.
export * from './protocol/index.js';

export { AgentClient, type AgentClientOptions, type StartRunOptions } from './client/agent-client.js';
export {
  AgentRun,
  type AgentRunResult,
  type DecisionOptions,
  type RunToolCall,
  type RunToolResult,
} from './client/agent-run.js';
export { RunRequestRejectedError } from './client/errors/run-request-rejected-error.js';
export {
  approvalSignal,
  approvalUpdate,
  eventsQuery,
  stateQuery,
  toolProgressSignal,
  toolResultSignal,
  toolResultUpdate,
  transcriptQuery,
} from '../workflows/messages.js';

export { createAgentWorker, workflowsPath, type AgentWorkerOptions } from './worker/create-agent-worker.js';
export { createActivities, type CreateActivitiesOptions } from '../activities/index.js';
export { resolveTemporalBinary, startDevServer, type DevServer, type DevServerOptions } from './worker/dev-server.js';

export {
  DurableAgentPayloadCodec,
  createPayloadCodec,
  type PayloadCodecOptions,
} from './codec/create-payload-codec.js';
export { payloadCodecFromEnv, DEFAULT_ENCRYPTION_KEY_ID } from './codec/payload-codec-from-env.js';
export {
  parseEncryptionKey,
  type EncryptionKeyInput,
  type KeyRingEncryption,
  type PayloadEncryptionOptions,
  type SingleKeyEncryption,
} from './codec/encryption-keys.js';
export { PayloadCodecError, isPayloadCodecError, type PayloadCodecErrorCode } from './codec/payload-codec-error.js';
export {
  DEFAULT_COMPRESSION_THRESHOLD_BYTES,
  ENCODING_ENCRYPTED,
  ENCODING_GZIP,
  METADATA_ENCRYPTION_KEY_ID,
} from './codec/constants.js';
export { withPayloadCodec } from './codec/with-payload-codec.js';
