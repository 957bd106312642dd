// `durable-agent`: defining agents and their tools (VoltAgent's tool API). Starting and watching runs is in
// `durable-agent/client`, hosting them in `durable-agent/worker`, workflow-safe types in `durable-agent/workflow`, and
// test doubles in `durable-agent/testing`.
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
export { type RegisteredTool } from './tool/normalize-tool.js';
export {
  ToolManager,
  type RegisteredToolkit,
  type ToolApiEntry,
  type ToolExecuteFactory,
} from './tool/tool-manager.js';
export { checkToolCall, type ToolCallCheck, type ToolLookup } from './tool/check-tool-call.js';
export { runToolPipeline, type RunToolPipelineInput, type ToolPipelineOutcome } from './tool/pipeline.js';
export type { AgentRef, AgentToolHooks, OnToolEndArgs, OnToolErrorArgs, OnToolStartArgs } from './tool/agent-hooks.js';
export type { ToolErrorCause, ToolErrorResult } from './tool/error-result.js';
export { DurableAgentError, type DurableAgentErrorOptions } from './errors/durable-agent-error.js';
export { ClientHTTPError } from './tool/errors/client-http-error.js';
export { ToolDeniedError, type ToolDeniedCode, type ToolDeniedErrorOptions } from './tool/errors/tool-denied-error.js';
export { CheckpointTooLargeError } from './tool/errors/checkpoint-too-large-error.js';
export { LocalToolError } from './tool/errors/local-tool-error.js';

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
export { AgentNotFoundError } from './agent/agent-not-found-error.js';
export type {
  AgentApprovalOptions,
  AgentSummarizationOptions,
  AgentHooks,
  AgentInstructions,
  AgentOptions,
  AgentRunContext,
  AuthorizeDecisionHook,
  DynamicTools,
  ToolRoutingConfig,
} from './agent/types.js';
export type {
  ApprovalDecision,
  ApprovalRunInfo,
  AuthorizeDecisionResult,
  JsonObject,
  JsonValue,
  PendingApproval,
} from './protocol/index.js';

// MCP: servers whose tools an agent uses (in-process, and in durable runs through the worker).
export * from './mcp/index.js';

// Tool routing: searchTools/callTool over a tool pool, lexical and embedding ranking.
export * from './routing/index.js';
