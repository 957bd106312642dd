import { DEFAULT_EMBEDDING_CACHE_BYTES } from './constants.js';

/** Options of {@link EmbeddingCache}. */
export interface EmbeddingCacheOptions {
  /** Budget for vectors and keys, in bytes (default 64 MiB). Least recently used entries go first. */
  maxBytes?: number;
}

/** Counters of an {@link EmbeddingCache}. */
export interface EmbeddingCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

/** What {@link EmbeddingCache.resolve} did for one list of texts. */
export interface ResolvedEmbeddings {
  /** One vector per input text, in order. */
  vectors: Float32Array[];
  /** Texts found in the cache (or already being embedded by a concurrent caller). */
  cacheHits: number;
  /** Texts this call embedded. */
  embeddedTexts: number;
  /** Embedding-model calls this call made. */
  calls: number;
}

/** Embeds texts the cache lacks; returns one vector per text and how many model calls that took. */
export type EmbedMissing = (texts: string[]) => Promise<{ embeddings: ArrayLike<number>[]; calls: number }>;

interface Entry {
  vector: Float32Array;
  bytes: number;
}

// Map overhead per entry, roughly: the entry object, the typed array header, the Map slot.
const ENTRY_OVERHEAD_BYTES = 96;
const encoder = new TextEncoder();

/**
 * A worker's tool-embedding cache, keyed by (embedding model identity, text). One per worker, shared by every
 * agent, run and strategy on it: a per-run routing override keeps the cache (VoltAgent rebuilds it per call).
 * Keyed by text rather than tool name, so a changed tool misses (and is re-embedded) while every unchanged tool
 * hits, and two agents with the same tool share one vector. Bounded in bytes; least recently used entries are
 * evicted first. Vectors are stored as float32 (half the memory of numbers; cosine scores differ by < 1e-6).
 *
 * Concurrent `resolve` calls that miss the same text embed it once: the second waits for the first.
 */
export class EmbeddingCache {
  readonly maxBytes: number;
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Float32Array>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(options: EmbeddingCacheOptions = {}) {
    const maxBytes = options.maxBytes ?? DEFAULT_EMBEDDING_CACHE_BYTES;
    if (!Number.isFinite(maxBytes) || maxBytes < 0) {
      throw new RangeError(`EmbeddingCache maxBytes must be a non-negative number of bytes, got ${maxBytes}.`);
    }
    this.maxBytes = maxBytes;
  }

  /** The cached vector of a text, marking it recently used; undefined on a miss. */
  get(modelKey: string, text: string): Float32Array | undefined {
    const key = cacheKey(modelKey, text);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Re-inserting moves the key to the end of the Map's order: the end is the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.vector;
  }

  /** Stores a vector (copied to float32), evicting least recently used entries beyond the byte budget. */
  set(modelKey: string, text: string, vector: ArrayLike<number>): void {
    const key = cacheKey(modelKey, text);
    const stored = Float32Array.from(vector);
    const bytes = encoder.encode(key).length + stored.byteLength + ENTRY_OVERHEAD_BYTES;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { vector: stored, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
      this.evictions += 1;
    }
  }

  /** True when the text's vector is cached (does not change recency). */
  has(modelKey: string, text: string): boolean {
    return this.entries.has(cacheKey(modelKey, text));
  }

  /**
   * The vectors of `texts` under one model: cached ones from the cache, the rest embedded with `embedMissing`
   * (each distinct missing text once, in one call of `embedMissing`, which batches them) and cached. With
   * `expectedLength`, a cached vector of another length counts as missing and is replaced (a model whose output
   * size changed under the same identity, e.g. a `dimensions` setting).
   */
  async resolve(
    modelKey: string,
    texts: readonly string[],
    embedMissing: EmbedMissing,
    expectedLength?: number,
  ): Promise<ResolvedEmbeddings> {
    const found = new Map<string, Float32Array>();
    const waiting = new Map<string, Promise<Float32Array>>();
    const missing: string[] = [];
    const missingSet = new Set<string>();
    let cacheHits = 0;
    for (const text of texts) {
      if (found.has(text) || waiting.has(text) || missingSet.has(text)) continue;
      const cached = this.get(modelKey, text);
      if (cached && (expectedLength === undefined || cached.length === expectedLength)) {
        found.set(text, cached);
        cacheHits += 1;
        continue;
      }
      const pending = this.inFlight.get(cacheKey(modelKey, text));
      if (pending) {
        waiting.set(text, pending);
        cacheHits += 1;
      } else {
        missing.push(text);
        missingSet.add(text);
      }
    }
    this.hits += cacheHits;
    this.misses += missing.length;

    let calls = 0;
    if (missing.length > 0) {
      const batch = embedMissing(missing).then(({ embeddings, calls: made }) => {
        if (embeddings.length !== missing.length) {
          throw new Error(`The embedding model returned ${embeddings.length} vectors for ${missing.length} texts.`);
        }
        calls = made;
        return embeddings;
      });
      missing.forEach((text, index) => {
        const key = cacheKey(modelKey, text);
        const vector = batch.then((embeddings) => {
          const stored = Float32Array.from(embeddings[index]!);
          this.set(modelKey, text, stored);
          return stored;
        });
        // Other callers may await it; a failure is theirs to see, so this copy must not be reported unhandled.
        vector.catch(() => undefined);
        this.inFlight.set(key, vector);
        waiting.set(text, vector);
        void vector.finally(() => this.inFlight.delete(key)).catch(() => undefined);
      });
      await batch;
    }
    for (const [text, promise] of waiting) found.set(text, await promise);
    return { vectors: texts.map((text) => found.get(text)!), cacheHits, embeddedTexts: missing.length, calls };
  }

  /** Counters since the cache was created. */
  stats(): EmbeddingCacheStats {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
    };
  }

  /** Drops every entry (counters are kept). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

function cacheKey(modelKey: string, text: string): string {
  // NUL cannot appear in a provider/model id, so (model, text) pairs never collide.
  return `${modelKey}\u0000${text}`;
}
