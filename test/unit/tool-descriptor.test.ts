import { openai } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeTool } from '../../src/tool/descriptor.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import { createTool } from '../../src/tool/tool.js';

describe('tool descriptors', () => {
  it('describe a user-defined tool as plain JSON', () => {
    const transfer = createTool({
      id: 'bank-transfer',
      name: 'transfer',
      description: 'Move money',
      parameters: z.object({ amount: z.number().positive(), currency: z.string().default('EUR') }),
      outputSchema: z.object({ ok: z.boolean() }),
      tags: ['bank'],
      needsApproval: true,
      mcp: { destructiveHint: true },
      activity: { startToCloseTimeout: '2m', retry: { maximumAttempts: 2, nonRetryableErrorTypes: ['Fatal'] } },
      execute: () => ({ ok: true }),
    });
    const descriptor = describeTool(transfer);
    expect(descriptor).toEqual({
      name: 'transfer',
      id: 'bank-transfer',
      description: 'Move money',
      kind: 'user-defined',
      inputSchema: expect.objectContaining({
        type: 'object',
        properties: {
          amount: { type: 'number', exclusiveMinimum: 0 },
          currency: { type: 'string', default: 'EUR' },
        },
        required: ['amount'],
      }),
      outputSchema: expect.objectContaining({ type: 'object', properties: { ok: { type: 'boolean' } } }),
      clientSide: false,
      needsApproval: true,
      tags: ['bank'],
      activity: { startToCloseTimeout: '2m', retry: { maximumAttempts: 2, nonRetryableErrorTypes: ['Fatal'] } },
      mcp: { destructiveHint: true },
    });
    expect(JSON.parse(JSON.stringify(descriptor))).toEqual(descriptor);
  });

  it("mark approval as 'dynamic' for a function and false when absent; client-side when there is no execute", () => {
    const dynamic = createTool({ name: 'd', description: 'd', parameters: z.object({}), needsApproval: () => true });
    const plain = createTool({ name: 'p', description: 'p', parameters: z.object({}), execute: () => 1 });
    expect(describeTool(dynamic)).toMatchObject({ needsApproval: 'dynamic', clientSide: true });
    expect(describeTool(plain)).toMatchObject({ needsApproval: false, clientSide: false });
    expect(describeTool(plain)).not.toHaveProperty('tags');
    expect(describeTool(plain)).not.toHaveProperty('outputSchema');
  });

  it('describe a provider tool with its provider id and args', () => {
    const fileSearch = { ...openai.tools.fileSearch({ vectorStoreIds: ['vs_1'] }), name: 'file_search' };
    const descriptor = describeTool(fileSearch);
    expect(descriptor).toMatchObject({
      name: 'file_search',
      id: 'openai.file_search',
      description: '',
      kind: 'provider',
      clientSide: false,
      needsApproval: false,
      providerId: 'openai.file_search',
      providerArgs: { vectorStoreIds: ['vs_1'] },
    });
    expect(JSON.parse(JSON.stringify(descriptor))).toEqual(descriptor);
  });

  it('come from the manager for every visible tool', () => {
    const manager = new ToolManager([
      createTool({ name: 'a', description: 'a', parameters: z.object({}) }),
      { name: 'kit', tools: [createTool({ name: 'b', description: 'b', parameters: z.object({}) })] },
    ]);
    expect(manager.getToolDescriptors().map((d) => d.name)).toEqual(['a', 'b']);
  });
});
