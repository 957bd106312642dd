import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool } from '../../src/tool/tool.js';
import { createToolkit, isToolkit } from '../../src/tool/toolkit.js';
import { captureLogs, messagesAt } from './support/log-capture.js';

const logs = captureLogs();
const add = createTool({ name: 'add', description: 'Add', parameters: z.object({ a: z.number(), b: z.number() }) });

describe('createToolkit', () => {
  it('throws "Toolkit name is required" without a name', () => {
    expect(() => createToolkit({ name: '', tools: [add] })).toThrow('Toolkit name is required');
  });

  it('warns when created without any tools (missing or empty)', () => {
    createToolkit({ name: 'empty' });
    createToolkit({ name: 'also_empty', tools: [] });
    expect(messagesAt(logs, 'warn')).toEqual([
      "Toolkit 'empty' created without any tools",
      "Toolkit 'also_empty' created without any tools",
    ]);
  });

  it('fills defaults: description "", addInstructions false, tools []', () => {
    expect(createToolkit({ name: 'k' })).toEqual({
      name: 'k',
      description: '',
      instructions: undefined,
      addInstructions: false,
      tools: [],
    });
  });

  it('keeps the given values', () => {
    const kit = createToolkit({
      name: 'calc',
      description: 'Arithmetic',
      instructions: 'Use add for sums.',
      addInstructions: true,
      tools: [add],
    });
    expect(kit).toEqual({
      name: 'calc',
      description: 'Arithmetic',
      instructions: 'Use add for sums.',
      addInstructions: true,
      tools: [add],
    });
    expect(messagesAt(logs, 'warn')).toEqual([]);
  });
});

describe('isToolkit', () => {
  it('is true for any object with a tools array', () => {
    expect(isToolkit({ name: 'plain', tools: [] })).toBe(true);
    expect(isToolkit(createToolkit({ name: 'k', tools: [add] }))).toBe(true);
  });

  it('is false for tools and other values', () => {
    expect(isToolkit(add)).toBe(false);
    expect(isToolkit({ name: 'x', tools: 'add' })).toBe(false);
    expect(isToolkit(null)).toBe(false);
    expect(isToolkit(undefined)).toBe(false);
  });
});
