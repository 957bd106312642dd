import { describe, expect, it } from 'vitest';
import { linearRegExp } from '../../src/mcp/linear-regexp.js';
import { LinearJsonSchemaValidator, MAX_COMPILED_SCHEMAS } from '../../src/mcp/schema-validator.js';
import { parametersFromServerSchema } from '../../src/mcp/parameters-from-schema.js';

const stringWith = (pattern: string) => ({ type: 'object', properties: { s: { type: 'string', pattern } } });

describe('LinearJsonSchemaValidator', () => {
  it('runs a backtracking pattern in linear time', () => {
    const validate = new LinearJsonSchemaValidator().getValidator(stringWith('^(a+)+$'));
    const started = Date.now();
    expect(validate({ s: `${'a'.repeat(5000)}!` }).valid).toBe(false);
    expect(validate({ s: 'aaaa' }).valid).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('keeps each pattern apart (Ajv shares compiled patterns by their string form)', () => {
    const validator = new LinearJsonSchemaValidator();
    expect(validator.getValidator(stringWith('^a$'))({ s: 'a' }).valid).toBe(true);
    expect(validator.getValidator(stringWith('^b$'))({ s: 'b' }).valid).toBe(true);
    expect(linearRegExp('^b$').toString()).toBe('/^b$/');
  });

  it('keeps at most MAX_COMPILED_SCHEMAS compiled schemas, never throws for one it cannot compile', () => {
    const validator = new LinearJsonSchemaValidator();
    for (let i = 0; i < MAX_COMPILED_SCHEMAS * 3; i++) {
      validator.getValidator({ type: 'object', properties: { n: { type: 'integer', minimum: i } } })({ n: i });
    }
    expect(validator.size).toBeLessThanOrEqual(MAX_COMPILED_SCHEMAS);
    const broken = validator.getValidator(stringWith('(?=a)'))({ s: 'a' });
    expect(broken).toMatchObject({ valid: false, errorMessage: expect.stringMatching(/linear-time engine/) });
  });
});

describe('parametersFromServerSchema', () => {
  it('checks patterns and patternProperties of model-written arguments in linear time', () => {
    const parameters = parametersFromServerSchema({
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(a+)+$' }, pattern: { type: 'string' } },
      patternProperties: { '^x-(a+)+$': { type: 'number' } },
      additionalProperties: false,
    });
    const started = Date.now();
    expect(parameters.safeParse({ s: `${'a'.repeat(5000)}!` }).success).toBe(false);
    expect(parameters.safeParse({ s: 'aa', pattern: 'a property named pattern', 'x-aaa': 1 }).success).toBe(true);
    expect(parameters.safeParse({ 'x-aaa': 'not a number' }).success).toBe(false);
    expect(parameters.safeParse({ other: 1 }).success).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
