import { ProviderRegistry } from '../models/provider-registry.js';
import { EmbeddingCache } from './embedding-cache.js';
import { EmbeddingToolSearchStrategy } from './strategies/embedding-strategy.js';
import { LexicalToolSearchStrategy } from './strategies/lexical-strategy.js';
import type { EmbeddingModelObject, ToolRoutingEmbeddingInput, ToolSearchStrategy } from './types.js';
import { isEmbeddingModelObject } from './validate-config.js';

/** Options of {@link ToolSearchService}. */
export interface ToolSearchServiceOptions {
  /** Resolves `provider/model` embedding strings (default: a registry with the built-in providers). */
  providers?: ProviderRegistry;
  /** The worker's embedding cache (default: a new one of `cacheMaxBytes`). */
  cache?: EmbeddingCache;
  /** Byte budget of the default cache (default 64 MiB). */
  cacheMaxBytes?: number;
}

/** The ranking a routing configuration uses. */
export type ResolvedSearchStrategy =
  | { kind: 'custom'; strategy: ToolSearchStrategy }
  | { kind: 'embedding'; strategy: EmbeddingToolSearchStrategy; topK?: number }
  | { kind: 'lexical'; strategy: LexicalToolSearchStrategy };

/**
 * What a worker keeps for tool search: one embedding cache, one lexical index cache (used by the lexical ranking
 * and by the lexical half of the hybrid one), and the embedding strategies built from routing configs (memoized
 * per config object and per model string). Every router, run and activity on the worker shares it, so a per-run
 * routing object never loses the cache (VoltAgent rebuilds its strategy, and so its cache, on every call with a
 * routing object that is not the agent's own).
 */
export class ToolSearchService {
  readonly providers: ProviderRegistry;
  readonly cache: EmbeddingCache;
  readonly lexical = new LexicalToolSearchStrategy();
  private readonly byObject = new WeakMap<object, EmbeddingToolSearchStrategy>();
  private readonly byString = new Map<string, EmbeddingToolSearchStrategy>();
  // Model strings may come from clients (a run's override): keep a bounded number of resolved models.
  private static readonly MAX_MODEL_STRINGS = 32;

  constructor(options: ToolSearchServiceOptions = {}) {
    this.providers = options.providers ?? new ProviderRegistry();
    this.cache = options.cache ?? new EmbeddingCache({ maxBytes: options.cacheMaxBytes });
  }

  /**
   * The ranking for a config: its custom strategy, else its embedding model (hybrid: cosine fused with BM25+,
   * or cosine alone with `lexicalWeight: 0`), else lexical (BM25+).
   */
  strategyFor(config: {
    embedding?: ToolRoutingEmbeddingInput;
    strategy?: ToolSearchStrategy;
  }): ResolvedSearchStrategy {
    if (config.strategy) return { kind: 'custom', strategy: config.strategy };
    if (config.embedding === undefined) return { kind: 'lexical', strategy: this.lexical };
    const strategy = this.embeddingStrategy(config.embedding);
    const topK =
      typeof config.embedding === 'object' && 'model' in config.embedding ? config.embedding.topK : undefined;
    return topK === undefined ? { kind: 'embedding', strategy } : { kind: 'embedding', strategy, topK };
  }

  /** The (memoized) embedding strategy of an `embedding` setting, sharing the worker's cache. */
  embeddingStrategy(input: ToolRoutingEmbeddingInput): EmbeddingToolSearchStrategy {
    if (typeof input === 'string') {
      let strategy = this.byString.get(input);
      if (!strategy) {
        strategy = new EmbeddingToolSearchStrategy({
          model: this.resolveModel(input),
          cache: this.cache,
          lexical: this.lexical,
        });
        this.byString.set(input, strategy);
        if (this.byString.size > ToolSearchService.MAX_MODEL_STRINGS) {
          this.byString.delete(this.byString.keys().next().value!);
        }
      }
      return strategy;
    }
    let strategy = this.byObject.get(input);
    if (!strategy) {
      strategy = isEmbeddingModelObject(input)
        ? new EmbeddingToolSearchStrategy({ model: input, cache: this.cache, lexical: this.lexical })
        : new EmbeddingToolSearchStrategy({
            model: typeof input.model === 'string' ? this.resolveModel(input.model) : input.model,
            cache: this.cache,
            maxBatchSize: input.maxBatchSize,
            toolText: input.toolText,
            minScore: input.minScore,
            cacheKey: input.cacheKey,
            lexicalWeight: input.lexicalWeight,
            lexical: this.lexical,
          });
      this.byObject.set(input, strategy);
    }
    return strategy;
  }

  /** Resolves a model string; the registry's own errors (unknown provider, missing key) say what to do. */
  private resolveModel(ref: string): EmbeddingModelObject {
    return this.providers.resolveEmbeddingModel(ref);
  }
}
