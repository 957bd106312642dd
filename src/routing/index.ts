// Tool routing (SPEC 3.7): searchTools/callTool over a tool pool, lexical and hybrid embedding ranking, the worker's
// embedding cache. Worker-side: it loads the AI SDK, zod and MiniSearch. Workflow code may import only
// `constants.ts` and `top-k.ts` from here (pure, import-free).
export * from './constants.js';
export { effectiveTopK, type TopKSources } from './top-k.js';
export type {
  EmbeddingModelObject,
  RunToolRoutingOverride,
  ToolRanking,
  ToolRankingStats,
  ToolRoutingConfig,
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
} from './types.js';
export { ToolRoutingConfigError } from './errors/tool-routing-config-error.js';
export { CallToolRefusedError } from './errors/call-tool-refused-error.js';
export {
  isEmbeddingModelObject,
  validateEmbeddingInput,
  validateRunToolRoutingOverride,
  validateToolRoutingConfig,
} from './validate-config.js';
export { isCallableTool, searchCandidates, toSearchCandidate } from './candidates.js';
export { defaultToolText, describeParameters, splitName, toolTextOf, truncateUtf8 } from './tool-text.js';
export {
  EmbeddingCache,
  type EmbedMissing,
  type EmbeddingCacheOptions,
  type EmbeddingCacheStats,
  type ResolvedEmbeddings,
} from './embedding-cache.js';
export {
  embedTexts,
  embeddingBatchSize,
  embeddingModelKey,
  type EmbedTextsOptions,
  type EmbeddedTexts,
} from './embed-texts.js';
export { cosineSimilarity, rankByCosine } from './cosine.js';
export { fuseScores, minMaxScale } from './fuse-scores.js';
export {
  EmbeddingToolSearchStrategy,
  createEmbeddingToolSearchStrategy,
  type EmbeddingToolSearchStrategyOptions,
  type EmbeddingWarmup,
} from './strategies/embedding-strategy.js';
export {
  LexicalToolSearchStrategy,
  createLexicalToolSearchStrategy,
  type LexicalToolSearchStrategyOptions,
} from './strategies/lexical-strategy.js';
export {
  buildToolSearchResult,
  noMatchMessage,
  searchedToolNames,
  type BuildToolSearchResultInput,
} from './search-result.js';
export { validateWithJsonCoercion, type CoercedCheck } from './coerce-args.js';
export {
  checkCallTool,
  type CallToolCheck,
  type CallToolCheckContext,
  type CallToolRefusal,
} from './call-tool-check.js';
export {
  CALL_TOOL_DESCRIPTION,
  SEARCH_TOOLS_DESCRIPTION,
  callToolParameters,
  searchToolsParameters,
} from './builtin-tools.js';
export {
  ToolSearchService,
  type ResolvedSearchStrategy,
  type ToolSearchServiceOptions,
} from './tool-search-service.js';
export {
  ToolRouter,
  createToolRouter,
  type EmbeddingPlan,
  type ToolApprovalHandler,
  type ToolApprovalRequest,
  type ToolPool,
  type ToolRouterOptions,
  type ToolRouterSearch,
} from './tool-router.js';
export { runRoutedTarget, type RunRoutedTargetInput } from './run-routed-target.js';
export { resolveRunToolRouting, type ResolveRunToolRoutingInput, type RunToolRouting } from './resolve-run-routing.js';
export { describeToolRouting, type ToolRoutingDescription } from './describe-routing.js';
