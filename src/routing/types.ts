import type { EmbeddingModel } from 'ai';
import type { JsonObject } from '../protocol/json.js';
import type {
  RunToolRoutingOverride,
  ToolRankingStats,
  ToolSearchResult,
  ToolSearchResultItem,
  ToolSearchSelection,
} from '../protocol/routing.js';
import type { ToolItem } from '../tool/toolkit.js';
import type { AnyTool } from '../tool/tool.js';

// The types that cross the activity boundary live in the workflow-safe protocol; routing shares them.
export type { RunToolRoutingOverride, ToolRankingStats, ToolSearchResult, ToolSearchResultItem, ToolSearchSelection };

/** An embedding model object (any AI SDK spec version). */
export type EmbeddingModelObject = Exclude<EmbeddingModel, string>;

/** One pool tool as a search strategy sees it: plain data plus the tool itself. */
export interface ToolSearchCandidate {
  name: string;
  description: string;
  tags: string[];
  /** JSON Schema of the arguments, as the model must write them. */
  parametersSchema: JsonObject;
  /** JSON Schema of the output, when the tool declares one. */
  outputSchema?: JsonObject;
  tool: AnyTool;
}

/** The run a search happens in (what a custom strategy may want to know). */
export interface ToolSearchContext {
  agentName?: string;
  /** The run: the workflow id in a durable run. */
  operationId?: string;
  userId?: string;
  conversationId?: string;
  context: Map<string, unknown>;
  abortSignal?: AbortSignal;
}

/** Input of {@link ToolSearchStrategy.select}. */
export interface ToolSearchInput {
  query: string;
  /** The pool tools that can be called through `callTool` (never client-side or provider tools). */
  tools: ToolSearchCandidate[];
  topK: number;
  context: ToolSearchContext;
}

/**
 * Picks the tools that fit a query. The built-in strategies are lexical (BM25) and embedding (cosine); give your
 * own as `toolRouting.strategy`. In a durable run it runs inside the `rankTools` activity, so it may do I/O.
 * Return at most `topK` selections, best first; names that are not candidates are dropped, and an empty list
 * means "no match" (the model is told so).
 */
export interface ToolSearchStrategy {
  select(input: ToolSearchInput): ToolSearchSelection[] | Promise<ToolSearchSelection[]>;
}

/** A ranking: selections best first, with what it cost. */
export interface ToolRanking {
  selections: ToolSearchSelection[];
  stats: ToolRankingStats;
}

/** Builds the text that represents a tool to an embedding model. */
export type ToolTextFunction = (candidate: ToolSearchCandidate) => string;

/** `toolRouting.embedding` in its object form. */
export interface ToolRoutingEmbeddingConfig {
  /** An AI SDK embedding model, or `provider/model` resolved by the worker's provider registry. */
  model: string | EmbeddingModelObject;
  /** Most texts per embedding call; the provider's own limit (`maxEmbeddingsPerCall`) applies too. */
  maxBatchSize?: number;
  /** Top-K when neither the call nor `toolRouting.topK` sets one. */
  topK?: number;
  /** Replaces the default tool text (name, description, tags, parameters). */
  toolText?: ToolTextFunction;
  /**
   * Tools scoring at or below this cosine similarity are never returned (default 0: a zero or negative
   * similarity is no evidence of relevance). Raise it for a model whose unrelated texts still score above 0
   * (for all-MiniLM-L6-v2, about 0.2) to get "no match" instead of weak guesses.
   */
  minScore?: number;
  /**
   * Identity of the model in the embedding cache. Default `<provider>/<modelId>`; set it when two differently
   * configured models share that (e.g. two OpenAI-compatible servers serving models with the same id).
   */
  cacheKey?: string;
  /**
   * Share of the lexical (BM25+) score in the ranking, from 0 to 1 (default 0.1): the ranking is hybrid, the
   * cosine similarity fused with the BM25+ score after scaling each to 0..1 over the pool. 0 ranks by cosine alone.
   * `minScore` still gates on the cosine similarity.
   */
  lexicalWeight?: number;
}

/** `toolRouting.embedding`: a model string, a model object, or the object form. */
export type ToolRoutingEmbeddingInput = string | EmbeddingModelObject | ToolRoutingEmbeddingConfig;

/**
 * Tool routing: the model sees `searchTools`, `callTool` and `expose`; the rest of the pool is reached by
 * searching, then calling through `callTool`.
 */
export interface ToolRoutingConfig {
  /** Tools reachable through `callTool`. No key → every registered tool, kept in sync with the agent's tools. */
  pool?: ToolItem[];
  /** Tools the model always sees directly. */
  expose?: ToolItem[];
  /**
   * Embedding model for ranking (hybrid: cosine similarity fused with BM25+, see `lexicalWeight`); without it,
   * lexical ranking (BM25+).
   */
  embedding?: ToolRoutingEmbeddingInput;
  /** Default number of tools a search returns (a call's own `topK` wins). */
  topK?: number;
  /** Default true: `callTool` refuses tools that no `searchTools` call of this run returned. */
  enforceSearchBeforeCall?: boolean;
  /** Replaces the built-in ranking (lexical or embedding). */
  strategy?: ToolSearchStrategy;
}
