// The MCP library: configuration, clients, the worker's connection pool, and the building blocks the durable
// runtime calls from activities (listing, calling, rebuilding tools from a recorded listing).
export {
  MCPConfiguration,
  type MCPConfigurationOptions,
  type MCPToolset,
  type McpServerFailure,
  type WithPool,
} from './configuration.js';
export { MCPClient, type MCPClientConfig, type MCPClientEvents } from './client.js';
export { UserInputBridge, type UserInputHandler } from './user-input-bridge.js';
export {
  McpConnectionPool,
  type McpConnectionPoolOptions,
  type McpLease,
  type McpListChangedListener,
  type McpServerTarget,
} from './connection-pool.js';
export type { McpConnection, McpProgress } from './connection.js';
export {
  callServerTool,
  listServerTools,
  DEFAULT_MCP_TIMEOUT_MS,
  type McpCallToolOptions,
  type McpListToolsOptions,
} from './server-operations.js';
export { mcpToolOrigin, mcpToolsFromListing, type McpToolCaller, type McpToolOrigin } from './tools-from-listing.js';
export {
  DEFAULT_LISTING_LIMITS,
  listingVersion,
  normalizeListing,
  type McpListingLimits,
  type McpServerListing,
  type McpToolAnnotations,
  type McpToolDefinition,
} from './listing.js';
export { DEFAULT_MAX_RESULT_BYTES, normalizeCallResult, type McpCallOutcome } from './call-result.js';
export {
  ELICITATION_LIMITS,
  normalizeElicitationRequest,
  validateElicitationAnswer,
  type ElicitationAnswerCheck,
  type McpElicitationAnswer,
  type McpElicitationContent,
  type McpElicitationHandler,
  type McpElicitationRequest,
} from './elicitation.js';
export {
  type MCPAuthorizationAction,
  type MCPAuthorizationConfig,
  type MCPAuthorizationContext,
  type MCPCanFunction,
  type MCPCanParams,
  type MCPCanResult,
  type MCPVerifiedIdentity,
  type MCPVerifyIdentity,
} from './authorization.js';
export { CLAIMS_CONTEXT_KEY, signClaims, verifySignedClaims, type SignedClaims } from './signed-claims.js';
export { MCPAuthorizationError } from './errors/mcp-authorization-error.js';
export { MCPConfigurationError } from './errors/mcp-configuration-error.js';
export { McpServerError, type McpFailureReason } from './errors/mcp-server-error.js';
export { McpToolError } from './errors/mcp-tool-error.js';
export { McpFailureType, classifyMcpError, type McpFailureTypeName } from './classify-mcp-error.js';
export { REDACTED, collectSecrets, createRedactor, type Redactor } from './secrets.js';
export { PausableDeadline } from './pausable-deadline.js';
export type {
  HttpServerConfig,
  MCPAuthContext,
  MCPServerConfig,
  MCPServerConfigBase,
  MCPTransportKind,
  SSEServerConfig,
  StdioServerConfig,
  StreamableHTTPServerConfig,
} from './types.js';
