import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { durationToMs } from '../../src/duration.js';
import { assembleSystemPrompt } from '../../src/agent/system-prompt.js';
import { createConsoleLogger, getGlobalLogger, setGlobalLogger, type Logger } from '../../src/logger.js';
import { evaluateNeedsApproval } from '../../src/tool/approval.js';
import { buildToolErrorResult } from '../../src/tool/error-result.js';
import { toJsonValue } from '../../src/tool/json-safe.js';
import { createTool } from '../../src/tool/tool.js';

describe('logger', () => {
  it('is replaceable globally', () => {
    const previous = getGlobalLogger();
    const warn = vi.fn();
    const mine: Logger = { debug: vi.fn(), info: vi.fn(), warn, error: vi.fn() };
    setGlobalLogger(mine);
    try {
      expect(getGlobalLogger()).toBe(mine);
      createTool({ name: 'x', parameters: z.object({}) });
      expect(warn).toHaveBeenCalledWith("Tool 'x' created without a description");
    } finally {
      setGlobalLogger(previous);
    }
  });

  it('writes to the console at or above its level', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    try {
      const logger = createConsoleLogger('info');
      logger.debug('hidden');
      logger.warn('shown', { a: 1 });
      expect(debug).not.toHaveBeenCalled();
      expect(warn).toHaveBeenCalledWith('[durable-agent] shown', { a: 1 });
    } finally {
      warn.mockRestore();
      debug.mockRestore();
    }
  });
});

describe('toJsonValue', () => {
  it('turns values into JSON data', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;
    const shared = { v: 1 };
    expect(
      toJsonValue({
        date: new Date('2024-01-02T03:04:05.000Z'),
        map: new Map([['k', 1]]),
        set: new Set([1, 2]),
        big: 10n,
        nan: Number.NaN,
        fn: () => 1,
        missing: undefined,
        list: [undefined, 1],
        circular,
        twice: [shared, shared],
      }),
    ).toEqual({
      date: '2024-01-02T03:04:05.000Z',
      map: { k: 1 },
      set: [1, 2],
      big: '10',
      nan: null,
      list: [null, 1],
      circular: { name: 'loop', self: '[Circular]' },
      twice: [{ v: 1 }, { v: 1 }],
    });
    expect(toJsonValue(undefined)).toBeUndefined();
  });
});

describe('buildToolErrorResult', () => {
  it('never lets own properties overwrite the fixed keys', () => {
    const error = Object.assign(new Error('m'), { toolName: 'other', toolCallId: 'other', error: false, code: 7 });
    expect(buildToolErrorResult(error, 'call-1', 'real')).toEqual({
      error: true,
      name: 'Error',
      message: 'm',
      toolCallId: 'call-1',
      toolName: 'real',
      code: 7,
    });
  });

  it('describes thrown non-errors', () => {
    expect(buildToolErrorResult({ message: 'obj', name: 'Custom' }, 'c', 't')).toMatchObject({
      name: 'Custom',
      message: 'obj',
    });
    expect(buildToolErrorResult(42, 'c', 't')).toMatchObject({ name: 'Error', message: '42' });
  });
});

describe('evaluateNeedsApproval', () => {
  const ctx = {
    toolCallId: 'c1',
    messages: [],
    userId: 'u1',
    conversationId: 'cv',
    context: new Map([['role', 'admin']]),
  };

  it('reads a boolean policy', async () => {
    const gated = createTool({ name: 'g', description: 'd', parameters: z.object({}), needsApproval: true });
    const open = createTool({ name: 'o', description: 'd', parameters: z.object({}) });
    expect(await evaluateNeedsApproval(gated, {}, ctx)).toBe(true);
    expect(await evaluateNeedsApproval(open, {}, ctx)).toBe(false);
  });

  it('calls a policy function with the args and the call context', async () => {
    const seen: unknown[] = [];
    const gated = createTool({
      name: 'g',
      description: 'd',
      parameters: z.object({ amount: z.number() }),
      needsApproval: async (args, c) => {
        seen.push([args, c]);
        return args.amount > 100;
      },
    });
    expect(await evaluateNeedsApproval(gated, { amount: 500 }, ctx)).toBe(true);
    expect(await evaluateNeedsApproval(gated, { amount: 5 }, ctx)).toBe(false);
    expect(seen[0]).toEqual([{ amount: 500 }, ctx]);
  });
});

describe('durationToMs', () => {
  it.each([
    [250, 250],
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['24h', 86_400_000],
    ['2 days', 172_800_000],
    ['1500', 1500],
    ['1.5h', 5_400_000],
    [' 30s ', 30_000],
    ['1 hour', 3_600_000],
  ])('%s → %d ms', (input, expected) => {
    expect(durationToMs(input)).toBe(expected);
  });

  it('rejects nonsense', () => {
    expect(() => durationToMs('5 fortnights')).toThrow(
      "Invalid duration: '5 fortnights' (expected a non-negative number of milliseconds, or a string such as '500ms'",
    );
    expect(() => durationToMs(-1)).toThrow('Invalid duration: -1');
    expect(() => durationToMs('-1s')).toThrow("Invalid duration: '-1s'");
    expect(() => durationToMs('')).toThrow("Invalid duration: ''");
    expect(() => durationToMs(Number.NaN)).toThrow('Invalid duration: NaN');
    expect(() => durationToMs('Infinity')).toThrow("Invalid duration: 'Infinity'");
  });
});

describe('assembleSystemPrompt', () => {
  it('puts the parts in order', () => {
    expect(
      assembleSystemPrompt({
        instructions: 'BASE',
        toolkits: [{ name: 'k', instructions: 'K', addInstructions: true, tools: [] }],
        markdown: true,
        retrievedContext: 'CTX',
      }),
    ).toBe('BASE\n\nK\n\nUse markdown to format your answers.\n\nRelevant Context:\nCTX');
  });
});
