import { openai } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkToolCall, type ToolLookup } from '../../src/tool/check-tool-call.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import { createTool, type AnyTool } from '../../src/tool/tool.js';

const weather = createTool({
  name: 'weather',
  description: 'Weather',
  parameters: z.object({ city: z.string(), units: z.enum(['c', 'f']).default('c') }),
  execute: () => 'sunny',
});
const time = createTool({ name: 'time', description: 'Time', parameters: z.object({}), execute: () => 'noon' });
const manager = new ToolManager([weather, time]);

describe('checkToolCall: unknown tools', () => {
  it.each(['missing', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', ''])(
    "gives the model the list of tools for '%s'",
    async (name) => {
      expect(await checkToolCall(manager, name, {})).toEqual({
        kind: 'unknown-tool',
        message: `Model tried to call unavailable tool '${name}'. Available tools: weather, time.`,
      });
    },
  );

  it('never reaches inherited properties of a record-backed lookup', async () => {
    const record: Record<string, AnyTool> = { weather };
    const lookup: ToolLookup = { getToolByName: (n) => record[n], getAllToolNames: () => Object.keys(record) };
    for (const name of ['__proto__', 'constructor', 'toString']) {
      expect((await checkToolCall(lookup, name, {})).kind).toBe('unknown-tool');
    }
  });

  it('says so when no tools are available', async () => {
    expect(await checkToolCall(new ToolManager(), 'x', {})).toEqual({
      kind: 'unknown-tool',
      message: "Model tried to call unavailable tool 'x'. No tools are available.",
    });
  });

  it('does not execute provider tools locally', async () => {
    const withProvider = new ToolManager([{ ...openai.tools.webSearch({}), name: 'web_search' }]);
    expect(await checkToolCall(withProvider, 'web_search', {})).toEqual({
      kind: 'unknown-tool',
      message: "Tool 'web_search' is executed by the model provider and cannot be called as a local tool.",
    });
  });
});

describe('checkToolCall: arguments', () => {
  it('returns the parsed arguments (defaults applied) for an object', async () => {
    expect(await checkToolCall(manager, 'weather', { city: 'Paris' })).toEqual({
      kind: 'valid',
      tool: weather,
      args: { city: 'Paris', units: 'c' },
    });
  });

  it('parses arguments given as a JSON string', async () => {
    expect(await checkToolCall(manager, 'weather', '{"city":"Oslo","units":"f"}')).toMatchObject({
      kind: 'valid',
      args: { city: 'Oslo', units: 'f' },
    });
  });

  it('treats an empty string as no arguments', async () => {
    expect(await checkToolCall(manager, 'time', '  ')).toMatchObject({ kind: 'valid', args: {} });
  });

  it('reports arguments that are not JSON as invalid input', async () => {
    const check = await checkToolCall(manager, 'weather', '{"city":');
    expect(check.kind).toBe('invalid-args');
    expect(check).toMatchObject({ tool: weather });
    expect((check as { message: string }).message).toMatch(
      /^Invalid input for tool weather: the arguments are not valid JSON \(.+\)$/,
    );
  });

  it('reports schema failures readably', async () => {
    const check = await checkToolCall(manager, 'weather', { city: 42 });
    expect(check).toEqual({
      kind: 'invalid-args',
      tool: weather,
      message: 'Invalid input for tool weather: ✖ Invalid input: expected string, received number\n  → at city',
    });
  });

  it('validates schemas with async refinements', async () => {
    const slow = createTool({
      name: 'slow',
      description: 'd',
      parameters: z.object({ id: z.string().refine(async (v) => v.startsWith('id-'), 'must start with id-') }),
      execute: () => 1,
    });
    const lookup = new ToolManager([slow]);
    expect(await checkToolCall(lookup, 'slow', { id: 'id-1' })).toMatchObject({ kind: 'valid' });
    expect(await checkToolCall(lookup, 'slow', { id: 'x' })).toMatchObject({
      kind: 'invalid-args',
      message: expect.stringContaining('must start with id-'),
    });
  });
});
