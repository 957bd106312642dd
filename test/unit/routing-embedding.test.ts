import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OfflineEmbeddingModel } from '../../src/models/offline-embedding-model.js';
import { searchCandidates } from '../../src/routing/candidates.js';
import { MAX_TOOL_TEXT_BYTES } from '../../src/routing/constants.js';
import { cosineSimilarity, rankByCosine } from '../../src/routing/cosine.js';
import { EmbeddingCache } from '../../src/routing/embedding-cache.js';
import { embeddingBatchSize, embeddingModelKey, embedTexts } from '../../src/routing/embed-texts.js';
import { EmbeddingToolSearchStrategy } from '../../src/routing/strategies/embedding-strategy.js';
import { defaultToolText, toolTextOf } from '../../src/routing/tool-text.js';
import { createTool, type AnyTool } from '../../src/tool/tool.js';
import { CountingEmbeddingModel } from '../fixtures/routing/counting-embedding-model.js';

const tool = (name: string, description: string): AnyTool =>
  createTool({ name, description, parameters: z.object({ q: z.string() }), execute: async () => 'ok' });

const pool = [
  tool('get_weather', 'Current weather and temperature for a city.'),
  tool('send_email', 'Send an email message to recipients.'),
  tool('convert_currency', 'Convert money between currencies.'),
  tool('track_package', 'Track a parcel shipment by tracking number.'),
  tool('play_music', 'Play songs on a speaker.'),
];

describe('cosine ranking', () => {
  it('computes cosine similarity, 0 for zero vectors and mismatched lengths', () => {
    expect(cosineSimilarity([1, 0], [1, 0])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([1, 0], [-1, 0])).toBeCloseTo(-1);
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0);
    expect(cosineSimilarity([1, 0], [1, 0, 0])).toBe(0);
  });

  it('drops zero and negative similarities (no evidence of relevance), ties by name, cut at topK', () => {
    const items = [
      { name: 'b', vector: [1, 0] },
      { name: 'a', vector: [1, 0] },
      { name: 'orthogonal', vector: [0, 1] },
      { name: 'opposite', vector: [-1, 0] },
    ];
    expect(rankByCosine([1, 0], items, 10).map((s) => s.name)).toEqual(['a', 'b']);
    expect(rankByCosine([1, 0], items, 1).map((s) => s.name)).toEqual(['a']);
    expect(rankByCosine([0, 0], items, 10)).toEqual([]);
    // A raised floor turns weak matches into "no match".
    expect(rankByCosine([1, 0.2], items, 10, 0.99)).toEqual([]);
  });
});

describe('embedTexts', () => {
  it('batches to the given size and counts one call per batch', async () => {
    const model = new CountingEmbeddingModel();
    const texts = Array.from({ length: 7 }, (_, i) => `text ${i}`);
    const result = await embedTexts(model, texts, { batchSize: 3 });
    expect(result.embeddings).toHaveLength(7);
    expect(result.calls).toBe(3);
    expect(model.calls.map((values) => values.length)).toEqual([3, 3, 1]);
  });

  it("sizes batches to the provider's limit capped by the config; a default when neither limits", async () => {
    expect(await embeddingBatchSize(new CountingEmbeddingModel({ maxEmbeddingsPerCall: 50 }))).toBe(50);
    expect(await embeddingBatchSize(new CountingEmbeddingModel({ maxEmbeddingsPerCall: 50 }), 10)).toBe(10);
    expect(await embeddingBatchSize(new CountingEmbeddingModel({ maxEmbeddingsPerCall: 50 }), 100)).toBe(50);
    expect(await embeddingBatchSize(new OfflineEmbeddingModel())).toBe(256);
    expect(await embeddingBatchSize(new CountingEmbeddingModel({ maxEmbeddingsPerCall: 100_000 }))).toBe(2048);
  });

  it('refuses malformed provider answers with a clear error', async () => {
    const wrongCount = new CountingEmbeddingModel({ vectors: () => [[1, 0]] });
    await expect(embedTexts(wrongCount, ['a', 'b'], { batchSize: 10 })).rejects.toThrow();
    const notFinite = new CountingEmbeddingModel({ vectors: (values) => values.map(() => [1, Number.NaN]) });
    await expect(embedTexts(notFinite, ['a'], { batchSize: 10 })).rejects.toThrow(/returned a malformed vector/);
    const ragged = new CountingEmbeddingModel({
      vectors: () => [
        [1, 0],
        [1, 0, 0],
      ],
    });
    await expect(embedTexts(ragged, ['a', 'b'], { batchSize: 10 })).rejects.toThrow(/malformed vector/);
    const huge = new CountingEmbeddingModel({ vectors: () => [new Array(20_000).fill(0.1)] });
    await expect(embedTexts(huge, ['a'], { batchSize: 10 })).rejects.toThrow(/at most 16384/);
  });

  it('keys models by provider and model id, or by an explicit cache key', () => {
    expect(embeddingModelKey(new OfflineEmbeddingModel())).toBe('offline/hashed-bow');
    expect(embeddingModelKey(new OfflineEmbeddingModel(), 'mine')).toBe('mine');
  });
});

describe('EmbeddingCache', () => {
  it('bounds itself in bytes, evicting the least recently used entry first', () => {
    const vector = new Array(100).fill(0.5); // 400 bytes as float32
    const cache = new EmbeddingCache({ maxBytes: 3 * 600 });
    cache.set('m', 'a', vector);
    cache.set('m', 'b', vector);
    cache.set('m', 'c', vector);
    expect(cache.get('m', 'a')).toBeDefined(); // a is now the most recent
    cache.set('m', 'd', vector);
    expect(cache.has('m', 'b')).toBe(false);
    expect(cache.has('m', 'a')).toBe(true);
    expect(cache.stats()).toMatchObject({ entries: 3, evictions: 1 });
    expect(cache.stats().bytes).toBeLessThanOrEqual(cache.maxBytes);
    // An entry bigger than the whole budget is not stored.
    cache.set('m', 'huge', new Array(10_000).fill(1));
    expect(cache.has('m', 'huge')).toBe(false);
    expect(() => new EmbeddingCache({ maxBytes: -1 })).toThrow(/non-negative/);
  });

  it('keeps models apart: the same text under two models is two entries', () => {
    const cache = new EmbeddingCache();
    cache.set('m1', 'same', [1, 0]);
    cache.set('m2', 'same', [0, 1]);
    expect([...cache.get('m1', 'same')!]).toEqual([1, 0]);
    expect([...cache.get('m2', 'same')!]).toEqual([0, 1]);
  });

  it('embeds a text missed by two concurrent callers once', async () => {
    const model = new CountingEmbeddingModel({ delayMs: 30 });
    const cache = new EmbeddingCache();
    const embed = (missing: string[]) => embedTexts(model, missing, { batchSize: 100 });
    const [first, second] = await Promise.all([
      cache.resolve('m', ['x', 'y'], embed),
      cache.resolve('m', ['y', 'z'], embed),
    ]);
    expect(model.texts).toBe(3);
    expect(first.embeddedTexts + second.embeddedTexts).toBe(3);
    expect([...second.vectors[0]!]).toEqual([...first.vectors[1]!]);
  });

  it('forgets a failed embedding so the next call tries again', async () => {
    const cache = new EmbeddingCache();
    await expect(cache.resolve('m', ['x'], () => Promise.reject(new Error('provider down')))).rejects.toThrow(
      'provider down',
    );
    const retried = await cache.resolve('m', ['x'], async () => ({ embeddings: [[1, 2]], calls: 1 }));
    expect(retried).toMatchObject({ embeddedTexts: 1, calls: 1 });
  });
});

describe('embedding strategy', () => {
  const candidates = searchCandidates(pool);

  it('ranks by meaning of the tool text and returns nothing for an unrelated query', async () => {
    const strategy = new EmbeddingToolSearchStrategy({ model: new OfflineEmbeddingModel() });
    const ranking = await strategy.rank('what is the weather in Paris', candidates, 3);
    expect(ranking.selections[0]?.name).toBe('get_weather');
    expect((await strategy.rank('zebra giraffe', candidates, 3)).selections).toEqual([]);
  });

  it('on a warm cache makes exactly one embedding call per search: the query', async () => {
    const model = new CountingEmbeddingModel();
    const strategy = new EmbeddingToolSearchStrategy({ model, cache: new EmbeddingCache() });
    const cold = await strategy.rank('send a mail', candidates, 1);
    expect(cold.stats).toEqual({ candidates: 5, embeddingCalls: 2, embeddedTexts: 5, cacheHits: 0 });
    model.calls.length = 0;
    const warm = await strategy.rank('convert dollars', candidates, 1);
    expect(warm.stats).toEqual({ candidates: 5, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 5 });
    expect(model.calls).toEqual([['convert dollars']]);
  });

  it('re-embeds only a changed tool, and shares vectors between strategies of one cache', async () => {
    const model = new CountingEmbeddingModel();
    const cache = new EmbeddingCache();
    await new EmbeddingToolSearchStrategy({ model, cache }).warm(candidates);
    const changedPool = searchCandidates([...pool.slice(1), tool('get_weather', 'Weather forecast for the week.')]);
    model.calls.length = 0;
    // A second strategy object (e.g. a per-run routing override) over the same cache.
    const ranking = await new EmbeddingToolSearchStrategy({ model, cache }).rank('forecast', changedPool, 1);
    expect(ranking.stats).toMatchObject({ embeddedTexts: 1, cacheHits: 4, embeddingCalls: 2 });
    expect(model.calls).toContainEqual(['get weather: Weather forecast for the week.']);
  });

  it('warms in batches of the configured size (what embedBatch activities do)', async () => {
    const model = new CountingEmbeddingModel({ maxEmbeddingsPerCall: 4 });
    const strategy = new EmbeddingToolSearchStrategy({ model, maxBatchSize: 2 });
    expect(await strategy.batchSize()).toBe(2);
    expect(await strategy.warm(candidates)).toEqual({ texts: 5, embeddedTexts: 5, cacheHits: 0, calls: 3 });
    expect(await strategy.warm(candidates)).toEqual({ texts: 5, embeddedTexts: 0, cacheHits: 5, calls: 0 });
  });

  it('honours minScore and a custom tool text', async () => {
    const strategy = new EmbeddingToolSearchStrategy({
      model: new OfflineEmbeddingModel(),
      toolText: (c) => (c.name === 'play_music' ? 'weather weather weather' : c.description),
      minScore: 0.5,
    });
    const ranking = await strategy.rank('weather', candidates, 5);
    expect(ranking.selections.map((s) => s.name)).toEqual(['play_music']);
  });

  it('re-embeds cached vectors of another length instead of scoring them 0', async () => {
    const cache = new EmbeddingCache();
    const small = new CountingEmbeddingModel({ dimensions: 64 });
    await new EmbeddingToolSearchStrategy({ model: small, cache }).warm(candidates);
    const large = new CountingEmbeddingModel({ dimensions: 512 });
    const ranking = await new EmbeddingToolSearchStrategy({ model: large, cache }).rank('weather city', candidates, 1);
    expect(ranking.selections[0]?.name).toBe('get_weather');
    expect(ranking.stats.embeddedTexts).toBe(5);
  });

  it('embeds nothing for an empty pool', async () => {
    const model = new CountingEmbeddingModel();
    const ranking = await new EmbeddingToolSearchStrategy({ model }).rank('anything', [], 3);
    expect(ranking.selections).toEqual([]);
    expect(model.calls).toEqual([]);
  });
});

describe('tool text', () => {
  it('is the name words and the description', () => {
    expect(defaultToolText(searchCandidates([tool('getWeather', 'Weather now.')])[0]!)).toBe(
      'get weather: Weather now.',
    );
    expect(defaultToolText(searchCandidates([tool('track_package', '')])[0]!)).toBe('track package');
  });

  it('is cut to a bounded number of UTF-8 bytes without splitting characters', () => {
    const long = searchCandidates([tool('big', '€'.repeat(10_000))])[0]!;
    const text = toolTextOf(long);
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(MAX_TOOL_TEXT_BYTES);
    expect(text.endsWith('€')).toBe(true);
    expect(() => toolTextOf(long, () => 42 as unknown as string)).toThrow(
      /returned number for tool 'big'; return a string/,
    );
  });
});
