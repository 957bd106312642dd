import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { searchCandidates } from '../../src/routing/candidates.js';
import { buildToolSearchResult, noMatchMessage, searchedToolNames } from '../../src/routing/search-result.js';
import { createTool } from '../../src/tool/tool.js';

const candidates = searchCandidates([
  createTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    tags: ['weather'],
    parameters: z.object({ city: z.string() }),
    outputSchema: z.object({ tempC: z.number() }),
    execute: async () => ({ tempC: 20 }),
  }),
  createTool({ name: 'send_email', description: '', parameters: z.object({ to: z.string() }), execute: async () => 1 }),
  createTool({
    name: 'huge_tool',
    description: 'A tool with a very large schema. '.repeat(10),
    parameters: z.object(
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field_${i}`, z.string().describe('x'.repeat(40))])),
    ),
    execute: async () => 1,
  }),
]);

describe('searchTools result', () => {
  it('has query, selections and tools with description, tags, JSON Schemas and score', () => {
    const result = buildToolSearchResult({
      query: 'weather',
      selections: [
        { name: 'get_weather', score: 0.9 },
        { name: 'send_email', score: 0.1 },
      ],
      candidates,
      topK: 2,
    });
    expect(result).toEqual({
      query: 'weather',
      selections: [
        { name: 'get_weather', score: 0.9 },
        { name: 'send_email', score: 0.1 },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather for a city.',
          tags: ['weather'],
          parametersSchema: expect.objectContaining({ type: 'object', properties: { city: { type: 'string' } } }),
          outputSchema: expect.objectContaining({ properties: { tempC: { type: 'number' } } }),
          score: 0.9,
        },
        {
          name: 'send_email',
          description: null,
          tags: null,
          parametersSchema: expect.objectContaining({ properties: { to: { type: 'string' } } }),
          outputSchema: null,
          score: 0.1,
        },
      ],
    });
    expect(searchedToolNames(result)).toEqual(['get_weather', 'send_email']);
  });

  it('drops unknown names and duplicates from a (custom) strategy, keeps at most topK, cleans scores', () => {
    const result = buildToolSearchResult({
      query: 'q',
      selections: [
        { name: 'not_a_tool', score: 1 },
        { name: 'send_email', score: Number.NaN },
        { name: 'send_email', score: 0.5 },
        { name: '__proto__' },
        { name: 'get_weather', reason: 'r' },
      ],
      candidates,
      topK: 1,
    });
    expect(result.selections).toEqual([{ name: 'send_email' }]);
    expect(result.tools.map((t) => t.name)).toEqual(['send_email']);
  });

  it('says so when nothing matched, and returns (so marks) nothing', () => {
    const result = buildToolSearchResult({ query: 'bake bread', selections: [], candidates, topK: 3 });
    expect(result).toEqual({ query: 'bake bread', selections: [], tools: [], message: noMatchMessage('bake bread') });
    expect(result.message).toBe(
      'No tool matches "bake bread". Search again with different words that describe the action you need (for ' +
        'example "send an email" or "convert currency"), or answer without a tool.',
    );
    expect(searchedToolNames(result)).toEqual([]);
    expect(buildToolSearchResult({ query: 'x', selections: [{ name: 'nope' }], candidates, topK: 3 }).tools).toEqual(
      [],
    );
  });

  it('keeps the result within its byte budget by leaving schemas out, with a note the model can act on', () => {
    const maxBytes = 4_000;
    const result = buildToolSearchResult({
      query: 'q',
      selections: [{ name: 'get_weather' }, { name: 'huge_tool' }],
      candidates,
      topK: 2,
      maxBytes,
    });
    expect(new TextEncoder().encode(JSON.stringify(result)).length).toBeLessThanOrEqual(maxBytes);
    expect(result.tools[0]!.parametersSchema).not.toBeNull();
    const huge = result.tools[1]!;
    expect(huge.name).toBe('huge_tool');
    expect(huge.parametersSchema).toBeNull();
    expect(huge.note).toMatch(/^Schemas left out: they take \d+ bytes, more than a search result may hold/);

    // An entry that would fit on its own is pointed at a narrower search instead.
    const budget = new TextEncoder().encode(
      JSON.stringify(buildToolSearchResult({ query: 'q', selections: [{ name: 'get_weather' }], candidates, topK: 1 })),
    ).length;
    const tight = buildToolSearchResult({
      query: 'q',
      selections: [{ name: 'send_email' }, { name: 'get_weather' }],
      candidates,
      topK: 2,
      maxBytes: budget + 40,
    });
    expect(tight.tools[1]!.note).toMatch(/Search with topK 1 for "get_weather"/);
  });
});
