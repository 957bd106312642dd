import type { EmbeddingModelV4, EmbeddingModelV4CallOptions, EmbeddingModelV4Result } from '@ai-sdk/provider';
import { estimateTokens } from './local-model-support.js';
import { contentWords } from './words.js';

/** Provider name of the offline models, as in the model strings `offline/demo` and `offline/hashed-bow`. */
export const OFFLINE_PROVIDER = 'offline';

/** Options of {@link OfflineEmbeddingModel}. */
export interface OfflineEmbeddingModelOptions {
  /** Model id reported to the AI SDK. Default `hashed-bow`. */
  modelId?: string;
  /** Vector length when the call does not ask for one. Default 256. */
  dimensions?: number;
}

/**
 * An offline stand-in embedding model (`offline/<any id>`): a hashed bag of stemmed words, L2-normalized, so
 * cosine similarity is word overlap. Good enough to route "weather in Paris" to `get_weather` without a key;
 * it knows no synonyms. Deterministic across processes (FNV-1a hashing, no randomness).
 */
export class OfflineEmbeddingModel implements EmbeddingModelV4 {
  /** The AI SDK embedding model interface this class implements. */
  readonly specificationVersion = 'v4';
  /** Always `offline`. */
  readonly provider = OFFLINE_PROVIDER;
  /** `hashed-bow` unless set in the options. */
  readonly modelId: string;
  /** Local hashing has no batch limit. */
  readonly maxEmbeddingsPerCall = Number.POSITIVE_INFINITY;
  /** Pure computation: safe to call in parallel. */
  readonly supportsParallelCalls = true;
  private readonly dimensions: number;

  constructor(options: OfflineEmbeddingModelOptions = {}) {
    this.modelId = options.modelId ?? 'hashed-bow';
    this.dimensions = options.dimensions ?? 256;
  }

  /** Embeds each value. */
  async doEmbed(options: EmbeddingModelV4CallOptions): Promise<EmbeddingModelV4Result> {
    options.abortSignal?.throwIfAborted();
    const dimensions = options.dimensions ?? this.dimensions;
    return {
      embeddings: options.values.map((value) => embedText(value, dimensions)),
      usage: { tokens: options.values.reduce((sum, value) => sum + estimateTokens(value), 0) },
      warnings: [],
    };
  }
}

/** The offline embedding of one text (exported for fixtures that must agree with the offline model). */
export function embedText(text: string, dimensions = 256): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of contentWords(text)) {
    const hash = fnv1a(word);
    // A hash-derived sign keeps colliding words from always adding up (the usual feature-hashing trick).
    vector[hash % dimensions]! += hash & 0x80000000 ? -1 : 1;
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return norm === 0 ? vector : vector.map((x) => x / norm);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
