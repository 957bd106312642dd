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

// MCP: servers whose tools an agent uses (in-process, and in durable runs through the worker). The pieces the worker's
// activities are built from (connection pool, listing and call normalization, deadlines) are internal.
export {
  MCPConfiguration,
  type MCPConfigurationOptions,
  type MCPToolset,
  type McpServerFailure,
} from './mcp/configuration.js';
export { MCPClient, type MCPClientConfig, type MCPClientEvents } from './mcp/client.js';
export { UserInputBridge, type UserInputHandler } from './mcp/user-input-bridge.js';
export type { McpConnectionPoolOptions } from './mcp/connection-pool.js';
export { DEFAULT_MCP_TIMEOUT_MS } from './mcp/server-operations.js';
export type { McpToolAnnotations, McpToolDefinition } from './mcp/listing.js';
export type {
  McpElicitationAnswer,
  McpElicitationContent,
  McpElicitationHandler,
  McpElicitationRequest,
} from './mcp/elicitation.js';
export type {
  MCPAuthorizationAction,
  MCPAuthorizationConfig,
  MCPAuthorizationContext,
  MCPCanFunction,
  MCPCanParams,
  MCPCanResult,
  MCPVerifiedIdentity,
  MCPVerifyIdentity,
} from './mcp/authorization.js';
export { CLAIMS_CONTEXT_KEY, signClaims, verifySignedClaims, type SignedClaims } from './mcp/signed-claims.js';
export { MCPAuthorizationError } from './mcp/errors/mcp-authorization-error.js';
export { MCPConfigurationError } from './mcp/errors/mcp-configuration-error.js';
export { McpServerError, type McpFailureReason } from './mcp/errors/mcp-server-error.js';
export { McpToolError } from './mcp/errors/mcp-tool-error.js';
export { McpFailureType, type McpFailureTypeName } from './mcp/classify-mcp-error.js';
export type {
  HttpServerConfig,
  MCPAuthContext,
  MCPServerConfig,
  MCPServerConfigBase,
  MCPTransportKind,
  SSEServerConfig,
  StdioServerConfig,
  StreamableHTTPServerConfig,
} from './mcp/types.js';

// Tool routing: searchTools/callTool over a tool pool, lexical and embedding ranking. Ranking internals (embedding
// batches, cosine, score fusion, the checks a routed call goes through) are not part of the public surface.
export * from './routing/constants.js';
export type {
  EmbeddingModelObject,
  RunToolRoutingOverride,
  ToolRanking,
  ToolRankingStats,
  ToolRoutingEmbeddingConfig,
  ToolRoutingEmbeddingInput,
  ToolSearchCandidate,
  ToolSearchContext,
  ToolSearchInput,
  ToolSearchResult,
  ToolSearchResultItem,
  ToolSearchSelection,
  ToolSearchStrategy,
  ToolTextFunction,
} from './routing/types.js';
export { ToolRoutingConfigError } from './routing/errors/tool-routing-config-error.js';
export { CallToolRefusedError } from './routing/errors/call-tool-refused-error.js';
export { defaultToolText } from './routing/tool-text.js';
export { EmbeddingCache, type EmbeddingCacheOptions, type EmbeddingCacheStats } from './routing/embedding-cache.js';
export {
  EmbeddingToolSearchStrategy,
  createEmbeddingToolSearchStrategy,
  type EmbeddingToolSearchStrategyOptions,
} from './routing/strategies/embedding-strategy.js';
export {
  LexicalToolSearchStrategy,
  createLexicalToolSearchStrategy,
  type LexicalToolSearchStrategyOptions,
} from './routing/strategies/lexical-strategy.js';
export {
  CALL_TOOL_DESCRIPTION,
  SEARCH_TOOLS_DESCRIPTION,
  callToolParameters,
  searchToolsParameters,
} from './routing/builtin-tools.js';
export { ToolSearchService, type ToolSearchServiceOptions } from './routing/tool-search-service.js';
export {
  ToolRouter,
  createToolRouter,
  type ToolApprovalHandler,
  type ToolApprovalRequest,
  type ToolPool,
  type ToolRouterOptions,
  type ToolRouterSearch,
} from './routing/tool-router.js';
