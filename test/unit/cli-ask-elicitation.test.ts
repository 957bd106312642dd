// Answering an MCP elicitation field by field in the terminal, with a scripted person (a Prompter that types the
// given lines in order and records every question): each field in its own type, defaults taken on empty input,
// required fields insisted on, each value checked by the runtime's own check, and every way out (decline, cancel,
// skip, input ended, too many mistakes).
import { describe, expect, it } from 'vitest';
import { askElicitation } from '../../src/cli/ask-elicitation.js';
import type { Prompter } from '../../src/cli/prompter.js';
import { PLAIN } from '../../src/cli/style.js';
import type { JsonObject } from '../../src/protocol/index.js';

/** A person who types `lines` in order (`undefined`: input ended) and the questions they were asked. */
function scriptedPerson(lines: (string | undefined)[]) {
  const asked: string[] = [];
  const prompter: Prompter = {
    ask(question) {
      asked.push(question);
      if (lines.length === 0) throw new Error(`asked more than scripted:\n${question}`);
      return Promise.resolve(lines.shift());
    },
    key() {
      throw new Error('an elicitation is answered in lines, never by a single key');
    },
    close() {},
  };
  return { prompter, asked, left: () => lines.length };
}

const SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Your name', minLength: 1 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    plan: { type: 'string', enum: ['free', 'pro'], enumNames: ['Free', 'Pro'], default: 'free' },
    color: {
      type: 'string',
      oneOf: [
        { const: '#f00', title: 'Red' },
        { const: '#0f0', title: 'Green' },
      ],
    },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1 },
    agree: { type: 'boolean', default: true },
    email: { type: 'string', format: 'email' },
    score: { type: 'number' },
  },
  required: ['name', 'tags'],
};
const request = { toolName: 'local_elicit', requestedSchema: SCHEMA };

describe('askElicitation', () => {
  it('asks every field in its type: required insisted on, bad values explained, defaults taken on empty input', async () => {
    const person = scriptedPerson([
      'a', // accept
      '', // name: required
      'Ada',
      'abc', // age: not a number
      '200', // over the maximum
      '3.5', // not an integer
      '36',
      '', // plan: the default
      '2', // color: the second option
      '1,3,1', // tags: by number, duplicates once
      'n', // agree
      'not-an-email',
      '', // email: optional, left out
      '-1.5e1', // score
    ]);
    expect(await askElicitation(person.prompter, request, PLAIN)).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36, plan: 'free', color: '#0f0', tags: ['a', 'c'], agree: false, score: -15 },
    });
    expect(person.left()).toBe(0);
    const asked = person.asked;
    expect(asked[0]).toBe("Answer local_elicit's question? [a]ccept / [d]ecline / [c]ancel / [s]kip ");
    expect(asked[1]).toBe('  name: string, required, at least 1 character · Your name\n  name: ');
    expect(asked[2]).toBe('name is required.\n  name: ');
    expect(asked[3]).toBe('  age: integer, 0 to 150\n  age (empty: leave out): ');
    expect(asked[4]).toBe('Type a whole number.\n  age (empty: leave out): ');
    expect(asked[5]).toBe("field 'age' must be at most 150.\n  age (empty: leave out): ");
    expect(asked[6]).toBe("field 'age' must be an integer.\n  age (empty: leave out): ");
    expect(asked[7]).toBe(
      [
        '  plan: one of "free" (Free), "pro" (Pro), default "free"',
        '    1) free (Free)',
        '    2) pro (Pro)',
        '  plan (number) [free]: ',
      ].join('\n'),
    );
    expect(asked[8]).toContain('    2) #0f0 (Green)\n  color (number) (empty: leave out): ');
    expect(asked[9]).toMatch(/ {2}tags \(numbers, comma-separated\): $/);
    expect(asked[10]).toBe('  agree: boolean (yes/no), default true\n  agree [y/n] [y]: ');
    expect(asked[12]).toBe("field 'email' must be a valid email.\n  email (empty: leave out): ");
  });

  it('takes options by value too, and checks list sizes and yes/no', async () => {
    const person = scriptedPerson(['accept', 'Bo', '', 'pro', '#f00', '-', '4', 'b', 'maybe', 'yes', '', '']);
    expect(await askElicitation(person.prompter, request, PLAIN)).toEqual({
      action: 'accept',
      content: { name: 'Bo', plan: 'pro', color: '#f00', tags: ['b'], agree: true },
    });
    expect(person.asked).toContain("field 'tags' needs at least 1 items.\n  tags (numbers, comma-separated): ");
    expect(person.asked).toContain(
      'Type numbers from 1 to 3, separated by commas (- for none).\n  tags (numbers, comma-separated): ',
    );
    expect(person.asked).toContain('Type y or n.\n  agree [y/n] [y]: ');
  });

  it('declines, cancels and skips without asking any field; explains a choice it does not know', async () => {
    expect(await askElicitation(scriptedPerson(['d']).prompter, request, PLAIN)).toEqual({ action: 'decline' });
    expect(await askElicitation(scriptedPerson(['Cancel']).prompter, request, PLAIN)).toEqual({ action: 'cancel' });
    expect(await askElicitation(scriptedPerson(['s']).prompter, request, PLAIN)).toBe('skip');
    expect(await askElicitation(scriptedPerson(['']).prompter, request, PLAIN)).toBe('skip');
    const person = scriptedPerson(['maybe', 'decline']);
    expect(await askElicitation(person.prompter, request, PLAIN)).toEqual({ action: 'decline' });
    expect(person.asked[1]).toMatch(/^Type a, d, c or s\.\nAnswer local_elicit's question\?/);
  });

  it('says first why the run rejected the last answer', async () => {
    const person = scriptedPerson(['c']);
    await askElicitation(person.prompter, request, PLAIN, "No pending elicitation 'x'.");
    expect(person.asked[0]).toBe(
      "No pending elicitation 'x'.\nAnswer local_elicit's question? [a]ccept / [d]ecline / [c]ancel / [s]kip ",
    );
  });

  it('resolves undefined when input ends, at the action or in the middle of the fields', async () => {
    expect(await askElicitation(scriptedPerson([undefined]).prompter, request, PLAIN)).toBeUndefined();
    expect(await askElicitation(scriptedPerson(['a', 'Ada', undefined]).prompter, request, PLAIN)).toBeUndefined();
  });

  it('skips the question after five mistakes in a row, at the action or at a field', async () => {
    expect(await askElicitation(scriptedPerson(['x', 'x', 'x', 'x', 'x']).prompter, request, PLAIN)).toBe('skip');
    const person = scriptedPerson(['a', '', '', '', '', '']);
    expect(await askElicitation(person.prompter, request, PLAIN)).toBe('skip');
    expect(person.left()).toBe(0);
  });

  it('cannot accept a question with a required field of a type the run cannot check; leaves out an optional one', async () => {
    const blocked = scriptedPerson(['a', 'c']);
    const schema = { type: 'object', properties: { o: { type: 'object' } }, required: ['o'] };
    expect(await askElicitation(blocked.prompter, { toolName: 't', requestedSchema: schema }, PLAIN)).toEqual({
      action: 'cancel',
    });
    expect(blocked.asked[1]).toMatch(/^Field 'o' is of a type that cannot be answered here; decline or cancel\.\n/);

    const optional = scriptedPerson(['a', 'x']);
    const mixed = { type: 'object', properties: { o: { type: 'object' }, s: { type: 'string' } } };
    expect(await askElicitation(optional.prompter, { toolName: 't', requestedSchema: mixed }, PLAIN)).toEqual({
      action: 'accept',
      content: { s: 'x' },
    });
  });

  it('takes fields whatever their names, `stop` and `__proto__` included', async () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"stop":{"type":"string"},"__proto__":{"type":"array","items":{"enum":["x"]}}},' +
        '"required":["stop","__proto__"]}',
    ) as JsonObject;
    const answer = await askElicitation(
      scriptedPerson(['a', 'now', '1']).prompter,
      { toolName: 't', requestedSchema: schema },
      PLAIN,
    );
    expect(answer).toEqual({ action: 'accept', content: JSON.parse('{"stop":"now","__proto__":["x"]}') as JsonObject });
    expect(Object.keys((answer as { content: object }).content)).toEqual(['stop', '__proto__']);
  });

  it('accepts a question without fields at once, and keeps hostile text out of the terminal', async () => {
    expect(await askElicitation(scriptedPerson(['a']).prompter, { toolName: 't', requestedSchema: {} }, PLAIN)).toEqual(
      { action: 'accept', content: {} },
    );

    const person = scriptedPerson(['a', '1']);
    const hostile = {
      toolName: 'evil\u001b[2J',
      requestedSchema: {
        type: 'object',
        properties: { 'f\u001b[8m': { type: 'string', enum: ['v\u001b]0;x\u0007'], description: 'd\u202e' } },
      },
    };
    expect(await askElicitation(person.prompter, hostile, PLAIN)).toEqual({
      action: 'accept',
      content: { 'f\u001b[8m': 'v\u001b]0;x\u0007' },
    });
    // eslint-disable-next-line no-control-regex
    for (const question of person.asked) expect(question.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u202e]/);
  });
});
