import { DEFAULT_LEXICAL_WEIGHT } from '../constants.js';
import { cosineSimilarity, rankByCosine } from '../cosine.js';
import { EmbeddingCache, type ResolvedEmbeddings } from '../embedding-cache.js';
import { embeddingBatchSize, embeddingModelKey, embedTexts } from '../embed-texts.js';
import { fuseScores } from '../fuse-scores.js';
import { toolTextOf } from '../tool-text.js';
import type {
  EmbeddingModelObject,
  ToolRanking,
  ToolSearchCandidate,
  ToolSearchInput,
  ToolSearchSelection,
  ToolSearchStrategy,
  ToolTextFunction,
} from '../types.js';
import { LexicalToolSearchStrategy } from './lexical-strategy.js';

/** Options of {@link createEmbeddingToolSearchStrategy}. */
export interface EmbeddingToolSearchStrategyOptions {
  model: EmbeddingModelObject;
  /** The worker's cache; a strategy without one gets its own (fine in-process, wasteful per call). */
  cache?: EmbeddingCache;
  /** Most texts per embedding call (the provider's limit applies too). */
  maxBatchSize?: number;
  toolText?: ToolTextFunction;
  /** Only tools whose cosine similarity is above this are returned (default 0). */
  minScore?: number;
  /** Identity of the model in the cache (default `<provider>/<modelId>`). */
  cacheKey?: string;
  /**
   * Share of the lexical (BM25+) score in the hybrid ranking, 0 to 1 (default {@link DEFAULT_LEXICAL_WEIGHT}).
   * 0 ranks by cosine similarity alone.
   */
  lexicalWeight?: number;
  /** The lexical ranking whose scores the hybrid ranking fuses (the worker's, to share its indexes). */
  lexical?: LexicalToolSearchStrategy;
}

/** What warming the cache for a list of tools did (what an `embedBatch` activity returns: counts, no vectors). */
export interface EmbeddingWarmup {
  texts: number;
  embeddedTexts: number;
  cacheHits: number;
  calls: number;
}

/**
 * Ranks tools with an embedding model. By default the ranking is hybrid: the cosine similarity between the query's
 * embedding and each tool text's embedding, fused with the tool's BM25+ score (see {@link fuseScores}), so a tool
 * named in the request's own words moves up among the semantically close ones. `lexicalWeight: 0` ranks by cosine
 * alone. Either way only tools whose cosine similarity is above `minScore` are returned: the embedding decides
 * whether anything fits ("no match"), the words only reorder what does.
 *
 * Tool vectors come from the worker's {@link EmbeddingCache}; missing ones are embedded in batches of the
 * provider's size. On a warm cache a search makes exactly one embedding call: the query (queries are not cached:
 * they are unbounded model output and rarely repeat). The lexical scores cost no model call.
 */
export class EmbeddingToolSearchStrategy implements ToolSearchStrategy {
  readonly model: EmbeddingModelObject;
  readonly cache: EmbeddingCache;
  /** The model's identity in the cache. */
  readonly modelKey: string;
  /** Share of the lexical score in the ranking (0: cosine alone). */
  readonly lexicalWeight: number;
  private readonly lexical?: LexicalToolSearchStrategy;
  private readonly maxBatchSize?: number;
  private readonly toolText?: ToolTextFunction;
  private readonly minScore: number;
  private batchSizePromise?: Promise<number>;
  // Candidates are memoized per tool object and this strategy's toolText never changes, so each tool's text is
  // built once (a warm search over 1,000 tools would otherwise rebuild and re-measure 1,000 strings).
  private readonly texts = new WeakMap<ToolSearchCandidate, string>();

  constructor(options: EmbeddingToolSearchStrategyOptions) {
    this.model = options.model;
    this.cache = options.cache ?? new EmbeddingCache();
    this.modelKey = embeddingModelKey(options.model, options.cacheKey);
    this.maxBatchSize = options.maxBatchSize;
    this.toolText = options.toolText;
    this.minScore = options.minScore ?? 0;
    this.lexicalWeight = options.lexicalWeight ?? DEFAULT_LEXICAL_WEIGHT;
    if (!(this.lexicalWeight >= 0 && this.lexicalWeight <= 1)) {
      throw new RangeError(`lexicalWeight must be a number from 0 to 1; got ${options.lexicalWeight}.`);
    }
    if (this.lexicalWeight > 0) this.lexical = options.lexical ?? new LexicalToolSearchStrategy();
  }

  /** Texts per embedding call: the provider's limit capped by `maxBatchSize`. */
  batchSize(): Promise<number> {
    this.batchSizePromise ??= embeddingBatchSize(this.model, this.maxBatchSize);
    return this.batchSizePromise;
  }

  /** The text embedded for a candidate. */
  textOf(candidate: ToolSearchCandidate): string {
    let text = this.texts.get(candidate);
    if (text === undefined) {
      text = toolTextOf(candidate, this.toolText);
      this.texts.set(candidate, text);
    }
    return text;
  }

  /** {@link ToolSearchStrategy.select}: the selections of {@link rank}. */
  async select(input: ToolSearchInput): Promise<ToolSearchSelection[]> {
    return (await this.rank(input.query, input.tools, input.topK, input.context.abortSignal)).selections;
  }

  /** Ranks candidates for a query: the query embedded once, tool vectors from the cache (missing ones embedded). */
  async rank(
    query: string,
    candidates: readonly ToolSearchCandidate[],
    topK: number,
    abortSignal?: AbortSignal,
  ): Promise<ToolRanking> {
    if (candidates.length === 0) {
      return { selections: [], stats: { candidates: 0, embeddingCalls: 0, embeddedTexts: 0, cacheHits: 0 } };
    }
    const [queryEmbedding, cached] = await Promise.all([
      embedTexts(this.model, [query], { batchSize: 1, abortSignal }),
      this.vectorsOf(candidates, abortSignal),
    ]);
    const length = queryEmbedding.embeddings[0]!.length;
    // Vectors of another length were cached under this model's identity by a differently configured model:
    // re-embed those (only those) rather than score them 0.
    const tools = cached.vectors.every((vector) => vector.length === length)
      ? cached
      : merge(cached, await this.vectorsOf(candidates, abortSignal, length));
    const queryVector = queryEmbedding.embeddings[0]!;
    return {
      selections: this.lexical
        ? this.hybrid(query, queryVector, candidates, tools.vectors, topK, this.lexical)
        : rankByCosine(
            queryVector,
            candidates.map((candidate, index) => ({ name: candidate.name, vector: tools.vectors[index]! })),
            topK,
            this.minScore,
          ),
      stats: {
        candidates: candidates.length,
        embeddingCalls: queryEmbedding.calls + tools.calls,
        embeddedTexts: tools.embeddedTexts,
        cacheHits: tools.cacheHits,
      },
    };
  }

  /** Cosine gate, then the fused score: best first, ties by name (every worker returns the same order). */
  private hybrid(
    query: string,
    queryVector: readonly number[],
    candidates: readonly ToolSearchCandidate[],
    vectors: readonly Float32Array[],
    topK: number,
    lexical: LexicalToolSearchStrategy,
  ): ToolSearchSelection[] {
    const cosines = vectors.map((vector) => cosineSimilarity(queryVector, vector));
    const fused = fuseScores(cosines, lexical.scores(query, candidates), this.lexicalWeight);
    const selections: ToolSearchSelection[] = [];
    candidates.forEach((candidate, i) => {
      if (cosines[i]! > this.minScore) selections.push({ name: candidate.name, score: fused[i]! });
    });
    selections.sort((a, b) => b.score! - a.score! || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return selections.slice(0, Math.max(0, topK));
  }

  /** Embeds the candidates the cache lacks (what an `embedBatch` activity does); returns counts only. */
  async warm(candidates: readonly ToolSearchCandidate[], abortSignal?: AbortSignal): Promise<EmbeddingWarmup> {
    const resolved = await this.vectorsOf(candidates, abortSignal);
    return {
      texts: candidates.length,
      embeddedTexts: resolved.embeddedTexts,
      cacheHits: resolved.cacheHits,
      calls: resolved.calls,
    };
  }

  private async vectorsOf(
    candidates: readonly ToolSearchCandidate[],
    abortSignal?: AbortSignal,
    expectedLength?: number,
  ): Promise<ResolvedEmbeddings> {
    const texts = candidates.map((candidate) => this.textOf(candidate));
    const batchSize = await this.batchSize();
    return this.cache.resolve(
      this.modelKey,
      texts,
      (missing) => embedTexts(this.model, missing, { batchSize, abortSignal }),
      expectedLength,
    );
  }
}

function merge(first: ResolvedEmbeddings, second: ResolvedEmbeddings): ResolvedEmbeddings {
  return {
    vectors: second.vectors,
    cacheHits: second.cacheHits,
    embeddedTexts: first.embeddedTexts + second.embeddedTexts,
    calls: first.calls + second.calls,
  };
}

/** Creates an {@link EmbeddingToolSearchStrategy}. */
export function createEmbeddingToolSearchStrategy(
  options: EmbeddingToolSearchStrategyOptions,
): EmbeddingToolSearchStrategy {
  return new EmbeddingToolSearchStrategy(options);
}
