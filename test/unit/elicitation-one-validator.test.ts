// The run's update validator and the MCP layer check an answer with one function, so the run never records
// "accept" for an answer the server then gets as `cancel`. These are the answers the two used to disagree on
// (string lengths in UTF-16 units against code points; hand-written date and email patterns against JSON Schema's).
import { describe, expect, it } from 'vitest';
import { validateElicitationAnswer } from '../../src/mcp/elicitation.js';
import { checkElicitationResponse, type JsonObject } from '../../src/protocol/index.js';

const schema: JsonObject = {
  type: 'object',
  properties: {
    short: { type: 'string', minLength: 2 },
    tiny: { type: 'string', maxLength: 1 },
    day: { type: 'string', format: 'date' },
    email: { type: 'string', format: 'email' },
  },
};

const both = (content: Record<string, string>) => {
  const answer = { action: 'accept', content };
  return { run: checkElicitationResponse(schema, answer).ok, server: validateElicitationAnswer(schema, answer).ok };
};

describe('one definition of a valid answer', () => {
  it.each([
    ['one emoji is one character: under minLength 2', { short: '👍' }, false],
    ['two emoji meet minLength 2', { short: '👍👍' }, true],
    ['one emoji fits maxLength 1', { tiny: '👍' }, true],
    ['a date that does not exist', { day: '2024-02-30' }, false],
    ['a real date', { day: '2024-02-29' }, true],
    ['an email with two dots in a row', { email: 'ada..l@example.com' }, false],
    ['an email at a single-label host', { email: 'ada@localhost' }, true],
    ['a plain email', { email: 'ada@example.com' }, true],
  ])('%s: both sides say the same', (_, content, valid) => {
    expect(both(content)).toEqual({ run: valid, server: valid });
  });

  it('does not run a server-supplied pattern (a ReDoS regex cannot stall the check)', () => {
    const hostile: JsonObject = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    const started = Date.now();
    const check = checkElicitationResponse(hostile, { action: 'accept', content: { s: `${'a'.repeat(40)}!` } });
    expect(check.ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(500);
  });
});
