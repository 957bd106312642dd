// The hybrid ranking used with an embedding model: cosine similarity fused with BM25+ (convex combination of
// min-max scaled scores), gated on the cosine similarity. Vectors are scripted (CountingEmbeddingModel with fixed
// vectors per text) so the cosine side is known exactly and the lexical side decides the near-ties.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { searchCandidates } from '../../src/routing/candidates.js';
import { DEFAULT_LEXICAL_WEIGHT } from '../../src/routing/constants.js';
import { EmbeddingCache } from '../../src/routing/embedding-cache.js';
import { fuseScores, minMaxScale } from '../../src/routing/fuse-scores.js';
import { EmbeddingToolSearchStrategy } from '../../src/routing/strategies/embedding-strategy.js';
import { LexicalToolSearchStrategy } from '../../src/routing/strategies/lexical-strategy.js';
import { ToolSearchService } from '../../src/routing/tool-search-service.js';
import { createTool, type AnyTool } from '../../src/tool/tool.js';
import { CountingEmbeddingModel } from '../fixtures/routing/counting-embedding-model.js';

const tool = (name: string, description: string): AnyTool =>
  createTool({ name, description, parameters: z.object({}), execute: async () => 'ok' });

describe('score fusion', () => {
  it('scales scores to 0..1 (all-equal scores carry no information and scale to 0)', () => {
    expect([...minMaxScale([2, 4, 6])]).toEqual([0, 0.5, 1]);
    expect([...minMaxScale([-0.5, 0.5])]).toEqual([0, 1]);
    expect([...minMaxScale([3, 3, 3])]).toEqual([0, 0, 0]);
    expect([...minMaxScale([])]).toEqual([]);
  });

  it('is a convex combination of the scaled lists', () => {
    const semantic = [0.2, 0.6, 0.4];
    const lexical = [10, 0, 5];
    expect([...fuseScores(semantic, lexical, 0)].map((x) => +x.toFixed(6))).toEqual([0, 1, 0.5]);
    expect([...fuseScores(semantic, lexical, 1)].map((x) => +x.toFixed(6))).toEqual([1, 0, 0.5]);
    // 0.8 * [0, 1, 0.5] + 0.2 * [1, 0, 0.5]
    expect([...fuseScores(semantic, lexical, 0.2)].map((x) => +x.toFixed(6))).toEqual([0.2, 0.8, 0.5]);
  });

  it('refuses lists of different lengths and weights outside 0..1', () => {
    expect(() => fuseScores([1, 2], [1], 0.2)).toThrow(/one lexical score per candidate: 2 ≠ 1/);
    for (const weight of [-0.1, 1.1, Number.NaN]) {
      expect(() => fuseScores([1], [1], weight)).toThrow(/lexicalWeight must be from 0 to 1/);
    }
  });
});

describe('lexical scores for fusion', () => {
  const candidates = searchCandidates([
    tool('send_email', 'Send an email message to recipients.'),
    tool('play_music', 'Play songs on a speaker.'),
    tool('track_package', 'Track a parcel shipment.'),
  ]);

  it('scores every candidate in order, 0 where no word is shared, consistent with the lexical ranking', () => {
    const lexical = new LexicalToolSearchStrategy();
    const scores = lexical.scores('play a song', candidates);
    expect(scores).toHaveLength(3);
    const byName = Object.fromEntries(candidates.map((c, i) => [c.name, scores[i]!]));
    expect(byName.play_music).toBeGreaterThan(0);
    expect(byName.send_email).toBe(0);
    expect(byName.track_package).toBe(0);
    const ranked = lexical.rank('play a song', candidates, 3).selections;
    expect(ranked).toEqual([{ name: 'play_music', score: byName.play_music }]);
    expect([...lexical.scores('anything', [])]).toEqual([]);
  });
});

describe('hybrid embedding strategy', () => {
  // Two tools the scripted model finds almost equally close to every query, and one far from it.
  const pool = [
    tool('create_email_draft', 'Save an unsent message for later.'),
    tool('send_email', 'Deliver a message to recipients now.'),
    tool('play_music', 'Play songs on a speaker.'),
  ];
  const candidates = searchCandidates(pool);
  const toolVectors: Record<string, number[]> = {
    'create email draft: Save an unsent message for later.': [0.95, 0.312],
    'send email: Deliver a message to recipients now.': [0.94, 0.341],
    'play music: Play songs on a speaker.': [-0.2, 0.98],
  };
  // Tool texts get their vectors above; every query gets [1, 0].
  const scripted = (values: string[]) => values.map((value) => toolVectors[value] ?? [1, 0]);

  it('lets the request’s own words reorder tools the embedding finds equally close', async () => {
    const model = new CountingEmbeddingModel({ vectors: scripted });
    const cosine = new EmbeddingToolSearchStrategy({ model, lexicalWeight: 0 });
    const hybrid = new EmbeddingToolSearchStrategy({ model });
    expect(hybrid.lexicalWeight).toBe(DEFAULT_LEXICAL_WEIGHT);
    const query = 'send the email to Ana';
    expect((await cosine.rank(query, candidates, 3)).selections.map((s) => s.name)).toEqual([
      'create_email_draft',
      'send_email',
    ]);
    const ranked = (await hybrid.rank(query, candidates, 3)).selections;
    expect(ranked.map((s) => s.name)).toEqual(['send_email', 'create_email_draft']);
    // Fused scores are in 0..1 and best first.
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score!);
    for (const s of ranked) expect(s.score).toBeGreaterThanOrEqual(0);
    for (const s of ranked) expect(s.score).toBeLessThanOrEqual(1);
  });

  it('gates on the cosine similarity: words alone never return a tool, and "no match" stays', async () => {
    const model = new CountingEmbeddingModel({ vectors: scripted });
    const strategy = new EmbeddingToolSearchStrategy({ model, lexicalWeight: 1 });
    // play_music shares the words but its cosine is negative: it is not returned even at full lexical weight.
    const music = (await strategy.rank('play music songs', candidates, 3)).selections.map((s) => s.name);
    expect(music).not.toContain('play_music');
    // minScore above every cosine: nothing fits, whatever the words say.
    const strict = new EmbeddingToolSearchStrategy({ model, minScore: 0.99 });
    expect((await strict.rank('send email', candidates, 3)).selections).toEqual([]);
  });

  it('still makes exactly one embedding call per warm search (the lexical side calls no model)', async () => {
    const model = new CountingEmbeddingModel();
    const strategy = new EmbeddingToolSearchStrategy({ model, cache: new EmbeddingCache() });
    await strategy.warm(candidates);
    model.calls.length = 0;
    const warm = await strategy.rank('send an email', candidates, 2);
    expect(warm.stats).toEqual({ candidates: 3, embeddingCalls: 1, embeddedTexts: 0, cacheHits: 3 });
    expect(model.calls).toEqual([['send an email']]);
    expect(warm.selections[0]?.name).toBe('send_email');
  });

  it('breaks equal fused scores by name, so every worker returns the same order', async () => {
    const model = new CountingEmbeddingModel({ vectors: (values) => values.map(() => [1, 0]) });
    const strategy = new EmbeddingToolSearchStrategy({ model });
    const ranked = await strategy.rank('zzz', candidates, 3);
    expect(ranked.selections.map((s) => s.name)).toEqual(['create_email_draft', 'play_music', 'send_email']);
  });

  it('refuses a lexical weight outside 0..1', () => {
    const model = new CountingEmbeddingModel();
    expect(() => new EmbeddingToolSearchStrategy({ model, lexicalWeight: 2 })).toThrow(
      /lexicalWeight must be a number from 0 to 1; got 2/,
    );
  });

  it("is the service's default with an embedding model, sharing the worker's lexical indexes", () => {
    const service = new ToolSearchService();
    const model = new CountingEmbeddingModel();
    const byDefault = service.strategyFor({ embedding: model });
    expect(byDefault.kind === 'embedding' && byDefault.strategy.lexicalWeight).toBe(DEFAULT_LEXICAL_WEIGHT);
    const cosineOnly = service.strategyFor({ embedding: { model, lexicalWeight: 0 } });
    expect(cosineOnly.kind === 'embedding' && cosineOnly.strategy.lexicalWeight).toBe(0);
    const weighted = service.strategyFor({ embedding: { model, lexicalWeight: 0.5 } });
    expect(weighted.kind === 'embedding' && weighted.strategy.lexicalWeight).toBe(0.5);
    expect(service.strategyFor({}).kind).toBe('lexical');
  });
});
