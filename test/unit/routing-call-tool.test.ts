import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkCallTool, type CallToolCheck } from '../../src/routing/call-tool-check.js';
import { validateWithJsonCoercion } from '../../src/routing/coerce-args.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import { createTool } from '../../src/tool/tool.js';

const tagItems = createTool({
  name: 'tag_items',
  description: 'Tags items.',
  parameters: z.object({
    ids: z.array(z.string()),
    options: z.object({ color: z.string(), nested: z.object({ deep: z.boolean() }).optional() }).optional(),
    count: z.number().default(1),
  }),
  execute: async (args) => args,
});
const clientSide = createTool({ name: 'pick_file', description: 'Client picks a file.', parameters: z.object({}) });
const providerTool = { type: 'provider' as const, id: 'openai.web_search', name: 'web_search', args: {} };
const pool = new ToolManager([tagItems, clientSide, providerTool]);

function check(
  input: { name?: unknown; args?: unknown },
  searched: string[] = ['tag_items', 'pick_file', 'web_search'],
  enforce = true,
) {
  return checkCallTool(input, {
    pool,
    visibleNames: new Set(['searchTools', 'callTool', 'get_time']),
    searched: new Set(searched),
    enforceSearchBeforeCall: enforce,
  });
}

function refused(result: CallToolCheck): { reason: string; message: string } {
  if (result.kind !== 'refused') throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result;
}

describe('callTool checks', () => {
  it('refuses recursion into the built-ins', async () => {
    for (const name of ['callTool', 'searchTools']) {
      expect(refused(await check({ name, args: {} }))).toMatchObject({
        reason: 'recursion',
        message: `Tool "${name}" cannot be called via callTool to avoid recursion. Use it directly instead.`,
      });
    }
  });

  it('refuses tools outside the pool, pointing at search or at the directly visible tool', async () => {
    expect(refused(await check({ name: 'drop_database' }))).toEqual({
      kind: 'refused',
      reason: 'not-in-pool',
      toolName: 'drop_database',
      message:
        'Tool not found in pool: drop_database. Call searchTools with a description of what you need and use a name it returns.',
    });
    expect(refused(await check({ name: 'get_time' })).message).toBe(
      'Tool not found in pool: get_time. It is available directly: call "get_time" itself instead of going through callTool.',
    );
    // Model output is untrusted: inherited property names are not tools.
    for (const name of ['__proto__', 'constructor', 'toString']) {
      expect(refused(await check({ name })).reason).toBe('not-in-pool');
    }
  });

  it('refuses names that are missing, empty or too long', async () => {
    for (const name of [undefined, '', '   ', 42, 'x'.repeat(257)]) {
      expect(refused(await check({ name })).reason).toBe('invalid-call');
    }
  });

  it('refuses client-side and provider tools, which cannot run here', async () => {
    expect(refused(await check({ name: 'pick_file' }))).toMatchObject({
      reason: 'not-callable',
      message:
        'Tool "pick_file" runs on the client and cannot be executed through callTool. Use another tool, or answer without it.',
    });
    expect(refused(await check({ name: 'web_search' })).message).toContain('runs inside the model provider');
  });

  it('refuses tools not searched in this run when enforced, and allows them when not', async () => {
    expect(refused(await check({ name: 'tag_items', args: { ids: [] } }, []))).toMatchObject({
      reason: 'not-searched',
      message:
        'Tool "tag_items" must be searched via searchTools before calling. Call searchTools with a description of ' +
        'what you need, then call one of the tools it returns with the schema it shows.',
    });
    expect((await check({ name: 'tag_items', args: { ids: [] } }, [], false)).kind).toBe('valid');
  });

  it('validates args against the target schema and returns the parsed value (defaults applied)', async () => {
    expect(await check({ name: 'tag_items', args: { ids: ['a'] } })).toEqual({
      kind: 'valid',
      tool: tagItems,
      args: { ids: ['a'], count: 1 },
      input: { ids: ['a'] },
      coerced: false,
    });
    const bad = refused(await check({ name: 'tag_items', args: { ids: 'a' } }));
    expect(bad.reason).toBe('invalid-args');
    expect(bad.message).toMatch(
      /^Invalid arguments for tool "tag_items": ✖ Invalid input: expected array, received string\n {2}→ at ids/,
    );
    expect(bad.message).toContain("Fix the arguments to match the tool's parametersSchema from searchTools");
  });

  it('accepts JSON strings where an object or array is expected, nested too', async () => {
    const result = await check({
      name: 'tag_items',
      args: { ids: '["a","b"]', options: '{"color":"red","nested":"{\\"deep\\":true}"}' },
    });
    expect(result).toEqual({
      kind: 'valid',
      tool: tagItems,
      args: { ids: ['a', 'b'], options: { color: 'red', nested: { deep: true } }, count: 1 },
      // What the target's own validation gets again (in its executeTool activity): parsed, before defaults.
      input: { ids: ['a', 'b'], options: { color: 'red', nested: { deep: true } } },
      coerced: true,
    });
  });

  it('accepts args as a JSON string, null or absent; refuses args that are not JSON', async () => {
    expect(await check({ name: 'tag_items', args: '{"ids":["x"]}' })).toMatchObject({
      kind: 'valid',
      args: { ids: ['x'] },
    });
    expect(refused(await check({ name: 'tag_items', args: null })).message).toContain(
      'expected array, received undefined',
    );
    expect(refused(await check({ name: 'tag_items', args: '{ids:' })).message).toMatch(
      /^Invalid arguments for tool "tag_items": "args" is a string but not valid JSON \(.+\); pass the arguments as an object\.$/,
    );
  });
});

describe('validateWithJsonCoercion', () => {
  it('does not mutate the input and does not coerce strings that are meant to be strings', async () => {
    const schema = z.object({ list: z.array(z.number()), label: z.string() });
    const input = { list: '[1,2]', label: '[not parsed]' };
    const result = await validateWithJsonCoercion(schema, input);
    expect(result).toMatchObject({ success: true, value: { list: [1, 2], label: '[not parsed]' }, coerced: true });
    expect(result.input).toEqual({ list: [1, 2], label: '[not parsed]' });
    expect(input.list).toBe('[1,2]');
  });

  it('gives up on strings that are not JSON containers and reports the original issue', async () => {
    const result = await validateWithJsonCoercion(z.object({ list: z.array(z.number()) }), { list: '1,2' });
    expect(result.success).toBe(false);
    expect(result.coerced).toBe(false);
  });
});
