// The run's own check of an answer to an MCP question (it runs in the workflow's update validator, without Ajv).
import { describe, expect, it } from 'vitest';
import { checkElicitationResponse, type JsonObject } from '../../src/protocol/index.js';

const schema: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 10 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    score: { type: 'number' },
    ok: { type: 'boolean', default: true },
    size: { type: 'string', enum: ['s', 'm', 'l'] },
    colour: {
      type: 'string',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
      ],
    },
    tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 2 },
    pets: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'cat', title: 'Cat' },
          { const: 'dog', title: 'Dog' },
        ],
      },
    },
  },
  required: ['name'],
};

const check = (content: unknown, action = 'accept') => checkElicitationResponse(schema, { action, content });

describe('checkElicitationResponse', () => {
  it('accepts a fitting answer and fills defaults', () => {
    expect(check({ name: 'Ada', age: 36, size: 'm', colour: 'g', tags: ['a'], pets: ['dog'] })).toEqual({
      ok: true,
      content: { name: 'Ada', age: 36, size: 'm', colour: 'g', tags: ['a'], pets: ['dog'], ok: true },
    });
  });

  it.each([
    [{}, "field 'name' is required"],
    [{ name: '' }, "field 'name' must have at least 1 characters"],
    [{ name: 'x'.repeat(11) }, "field 'name' must have at most 10 characters"],
    [{ name: 'a', email: 'nope' }, "field 'email' must be a valid email"],
    [{ name: 'a', age: 1.5 }, "field 'age' must be an integer"],
    [{ name: 'a', age: 151 }, "field 'age' must be at most 150"],
    [{ name: 'a', score: 'x' }, "field 'score' must be a number"],
    [{ name: 'a', ok: 'yes' }, "field 'ok' must be true or false"],
    [{ name: 'a', size: 'xl' }, 'field \'size\' must be one of "s", "m", "l"'],
    [{ name: 'a', colour: 'b' }, 'field \'colour\' must be one of "r", "g"'],
    [{ name: 'a', tags: ['c'] }, 'field \'tags\' may only contain "a", "b"'],
    [{ name: 'a', tags: ['a', 'b', 'a'] }, "field 'tags' takes at most 2 items"],
    [{ name: 'a', pets: ['fish'] }, 'field \'pets\' may only contain "cat", "dog"'],
    [{ name: 'a', extra: 1 }, "field 'extra' was not asked for"],
  ])('rejects %j: %s', (content, problem) => {
    expect(check(content)).toEqual({ ok: false, problem });
  });

  it('takes decline and cancel without content, and nothing else', () => {
    expect(check(undefined, 'decline')).toEqual({ ok: true });
    expect(check(undefined, 'cancel')).toEqual({ ok: true });
    expect(check({ name: 'a' }, 'decline')).toMatchObject({ ok: false });
    expect(check(undefined, 'maybe')).toEqual({ ok: false, problem: "action must be 'accept', 'decline' or 'cancel'" });
    expect(check([1, 2])).toMatchObject({ ok: false });
  });
});
