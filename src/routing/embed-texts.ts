import { embedMany } from 'ai';
import { DEFAULT_EMBEDDING_BATCH_SIZE, MAX_EMBEDDING_BATCH_SIZE } from './constants.js';
import type { EmbeddingModelObject } from './types.js';

/** Options of {@link embedTexts}. */
export interface EmbedTextsOptions {
  /** Most texts per call (see {@link embeddingBatchSize}). */
  batchSize: number;
  abortSignal?: AbortSignal;
}

/** Vectors of {@link embedTexts}, with the number of model calls made. */
export interface EmbeddedTexts {
  embeddings: number[][];
  calls: number;
  /** Tokens the provider reported (NaN when it reported none). */
  tokens: number;
}

/** Longest vector accepted from a provider: anything bigger is not an embedding we can use. */
const MAX_DIMENSIONS = 16_384;

/**
 * The identity of an embedding model in the cache: `<provider>/<modelId>` (e.g. `openai.embedding/
 * text-embedding-3-small`, `offline/hashed-bow`), or the configured `cacheKey`.
 */
export function embeddingModelKey(model: EmbeddingModelObject, cacheKey?: string): string {
  return cacheKey ?? `${model.provider}/${model.modelId}`;
}

/**
 * Texts per embedding call (and per `embedBatch` activity): the provider's `maxEmbeddingsPerCall`, capped by
 * `maxBatchSize`; {@link DEFAULT_EMBEDDING_BATCH_SIZE} when neither limits it; never above
 * {@link MAX_EMBEDDING_BATCH_SIZE}.
 */
export async function embeddingBatchSize(model: EmbeddingModelObject, maxBatchSize?: number): Promise<number> {
  const providerLimit = Number(await (model as { maxEmbeddingsPerCall?: unknown }).maxEmbeddingsPerCall);
  const limits = [maxBatchSize, providerLimit].filter((n): n is number => Number.isFinite(n) && n! >= 1);
  const size = limits.length > 0 ? Math.min(...limits) : DEFAULT_EMBEDDING_BATCH_SIZE;
  return Math.min(MAX_EMBEDDING_BATCH_SIZE, Math.floor(size));
}

/**
 * Embeds texts in calls of at most `batchSize` texts, one after another, and counts the calls. The AI SDK's own
 * retries are off: in a durable run Temporal retries the activity. A provider answer that is not one finite
 * vector of one length per text is an error (the server is not trusted).
 */
export async function embedTexts(
  model: EmbeddingModelObject,
  texts: readonly string[],
  options: EmbedTextsOptions,
): Promise<EmbeddedTexts> {
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const embeddings: number[][] = [];
  let calls = 0;
  let tokens = 0;
  for (let start = 0; start < texts.length; start += batchSize) {
    options.abortSignal?.throwIfAborted();
    const values = texts.slice(start, start + batchSize);
    const result = await embedMany({ model, values, maxRetries: 0, abortSignal: options.abortSignal });
    // The SDK may split a batch further (a provider's input-byte limit); each response is one model call.
    calls += Math.max(1, result.responses?.length ?? 1);
    tokens += result.usage?.tokens ?? Number.NaN;
    embeddings.push(...result.embeddings);
  }
  checkVectors(embeddings, texts.length, model);
  return { embeddings, calls, tokens };
}

function checkVectors(embeddings: unknown[], expected: number, model: EmbeddingModelObject): void {
  const where = `embedding model ${model.provider}/${model.modelId}`;
  if (embeddings.length !== expected) {
    throw new Error(`The ${where} returned ${embeddings.length} vectors for ${expected} texts.`);
  }
  const dimensions = (embeddings[0] as unknown[] | undefined)?.length ?? 0;
  for (const vector of embeddings) {
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      vector.length > MAX_DIMENSIONS ||
      vector.length !== dimensions ||
      !vector.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      throw new Error(
        `The ${where} returned a malformed vector (expected ${dimensions || 'some'} finite numbers, at most ` +
          `${MAX_DIMENSIONS}). Check that the server really serves embeddings for this model.`,
      );
    }
  }
}
