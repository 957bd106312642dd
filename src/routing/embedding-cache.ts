import { LRUCache } from 'lru-cache';
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
  modelKey: string;
  text: string;
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
  // Model → text → entry. Nested rather than one `model + text` key: tool texts are memoized strings whose hash V8
  // keeps, while a concatenated key would be built and hashed anew on every lookup of every search.
  private readonly models = new Map<string, Map<string, Entry>>();
  // Recency and the byte budget. Keyed by the entry object itself (hashed by identity, so no key is built); an
  // entry it drops, evicted or replaced, leaves `models` in `forget`.
  private readonly recency: LRUCache<Entry, true>;
  private readonly inFlight = new Map<string, Promise<Float32Array>>();
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(options: EmbeddingCacheOptions = {}) {
    const maxBytes = options.maxBytes ?? DEFAULT_EMBEDDING_CACHE_BYTES;
    if (!Number.isFinite(maxBytes) || maxBytes < 0) {
      throw new RangeError(`EmbeddingCache maxBytes must be a non-negative number of bytes, got ${maxBytes}.`);
    }
    this.maxBytes = maxBytes;
    this.recency = new LRUCache<Entry, true>({
      // lru-cache wants a positive budget; with none, `set` stores nothing (every entry has a size).
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (_, entry) => entry.bytes,
      dispose: (_, entry, reason) => {
        if (reason === 'evict') this.evictions += 1;
        this.forget(entry);
      },
    });
  }

  /** The cached vector of a text, marking it recently used; undefined on a miss. */
  get(modelKey: string, text: string): Float32Array | undefined {
    const entry = this.models.get(modelKey)?.get(text);
    if (!entry) return undefined;
    this.recency.get(entry);
    return entry.vector;
  }

  /** Stores a vector (copied to float32), evicting least recently used entries beyond the byte budget. */
  set(modelKey: string, text: string, vector: ArrayLike<number>): void {
    const stored = Float32Array.from(vector);
    const bytes =
      encoder.encode(modelKey).length + encoder.encode(text).length + stored.byteLength + ENTRY_OVERHEAD_BYTES;
    const previous = this.models.get(modelKey)?.get(text);
    if (previous) this.recency.delete(previous);
    if (bytes > this.maxBytes) return;
    let texts = this.models.get(modelKey);
    if (!texts) {
      texts = new Map();
      this.models.set(modelKey, texts);
    }
    const entry: Entry = { modelKey, text, vector: stored, bytes };
    texts.set(text, entry);
    this.recency.set(entry, true);
  }

  /** True when the text's vector is cached (does not change recency). */
  has(modelKey: string, text: string): boolean {
    return this.models.get(modelKey)?.has(text) ?? false;
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
      const pending = this.inFlight.get(inFlightKey(modelKey, text));
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
        const key = inFlightKey(modelKey, text);
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
      entries: this.recency.size,
      bytes: this.recency.calculatedSize,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
    };
  }

  /** Drops every entry (counters are kept). */
  clear(): void {
    this.recency.clear();
  }

  /** Removes an entry the recency list dropped from the lookup maps (unless a newer entry took its place). */
  private forget(entry: Entry): void {
    const texts = this.models.get(entry.modelKey);
    if (texts?.get(entry.text) !== entry) return;
    texts.delete(entry.text);
    if (texts.size === 0) this.models.delete(entry.modelKey);
  }
}

function inFlightKey(modelKey: string, text: string): string {
  // NUL cannot appear in a provider/model id, so (model, text) pairs never collide. Only misses build this key.
  return `${modelKey}\u0000${text}`;
}
