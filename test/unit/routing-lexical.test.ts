import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { searchCandidates, toSearchCandidate } from '../../src/routing/candidates.js';
import { LexicalToolSearchStrategy } from '../../src/routing/strategies/lexical-strategy.js';
import { createTool, type AnyTool } from '../../src/tool/tool.js';

function tool(name: string, description: string, extra: { tags?: string[]; params?: z.ZodObject<any> } = {}): AnyTool {
  return createTool({
    name,
    description,
    tags: extra.tags,
    parameters: extra.params ?? z.object({}),
    execute: async () => 'ok',
  });
}

const pool = [
  tool('getWeatherForecast', 'Daily forecast for a city.', {
    params: z.object({ city: z.string().describe('City name') }),
  }),
  tool('send_email', 'Send a message to recipients.', { tags: ['mail'] }),
  tool('convert-currency', 'Convert an amount between currencies.'),
  tool('track_package', 'Where a shipment is.', {
    params: z.object({ tracking_number: z.string().describe('Carrier tracking number') }),
  }),
];

describe('lexical ranking (BM25+ over name, description, tags, parameters)', () => {
  const strategy = new LexicalToolSearchStrategy();
  const candidates = searchCandidates(pool);

  it('splits camelCase, snake_case and kebab-case names into words', () => {
    expect(strategy.rank('weather', candidates, 3).selections[0]?.name).toBe('getWeatherForecast');
    expect(strategy.rank('email', candidates, 3).selections[0]?.name).toBe('send_email');
    expect(strategy.rank('currency', candidates, 3).selections[0]?.name).toBe('convert-currency');
  });

  it('matches tags, parameter names and parameter descriptions, with stemming', () => {
    expect(strategy.rank('mail', candidates, 3).selections.map((s) => s.name)).toEqual(['send_email']);
    expect(strategy.rank('tracking number', candidates, 1).selections[0]?.name).toBe('track_package');
    expect(strategy.rank('forecasts', candidates, 1).selections[0]?.name).toBe('getWeatherForecast');
  });

  it('returns nothing (not arbitrary tools) when no word matches, and never zero scores', () => {
    expect(strategy.rank('zzz qqq', candidates, 3).selections).toEqual([]);
    // Only stop words: nothing to match on.
    expect(strategy.rank('what is the', candidates, 3).selections).toEqual([]);
    const ranked = strategy.rank('send currency', candidates, 10).selections;
    expect(ranked.map((s) => s.name).sort()).toEqual(['convert-currency', 'send_email']);
    expect(ranked.every((s) => (s.score ?? 0) > 0)).toBe(true);
  });

  it('ranks best first, cuts at topK, and breaks ties by name', () => {
    const twins = searchCandidates([tool('b_tool', 'Invoice lookup.'), tool('a_tool', 'Invoice lookup.')]);
    expect(strategy.rank('invoice', twins, 2).selections.map((s) => s.name)).toEqual(['a_tool', 'b_tool']);
    expect(strategy.rank('invoice', twins, 1).selections).toHaveLength(1);
    expect(strategy.rank('invoice', [], 3).selections).toEqual([]);
  });

  it('rebuilds its index when a tool changes, and keeps it while the pool is the same', () => {
    const local = new LexicalToolSearchStrategy();
    const first = [tool('alpha', 'Books trains.')];
    expect(local.rank('trains', searchCandidates(first), 1).selections[0]?.name).toBe('alpha');
    // Same name, new definition: the new description must be what is searched.
    const changed = [tool('alpha', 'Books ferries.')];
    expect(local.rank('trains', searchCandidates(changed), 1).selections).toEqual([]);
    expect(local.rank('ferries', searchCandidates(changed), 1).selections[0]?.name).toBe('alpha');
  });

  it('describes each tool once per worker (memoized per tool object)', () => {
    const t = pool[0]!;
    expect(toSearchCandidate(t)).toBe(toSearchCandidate(t));
    expect(toSearchCandidate(t).parametersSchema).toMatchObject({ properties: { city: { type: 'string' } } });
  });
});
