import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { OfflineEmbeddingModel } from '../../src/models/offline-embedding-model.js';
import { MAX_TOOL_SEARCH_TOP_K } from '../../src/routing/constants.js';
import { ToolRoutingConfigError } from '../../src/routing/errors/tool-routing-config-error.js';
import { effectiveTopK } from '../../src/routing/top-k.js';
import { validateRunToolRoutingOverride, validateToolRoutingConfig } from '../../src/routing/validate-config.js';
import { createToolkit } from '../../src/tool/toolkit.js';
import { createTool } from '../../src/tool/tool.js';

const userTool = (name: string) =>
  createTool({ name, description: `${name} tool`, parameters: z.object({}), execute: async () => 'ok' });

function errorOf(fn: () => unknown): ToolRoutingConfigError {
  try {
    fn();
  } catch (error) {
    if (ToolRoutingConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ToolRoutingConfigError');
}

describe('toolRouting validation', () => {
  it('accepts undefined, false and a full valid config', () => {
    expect(() => validateToolRoutingConfig(undefined)).not.toThrow();
    expect(() => validateToolRoutingConfig(false)).not.toThrow();
    expect(() =>
      validateToolRoutingConfig({
        pool: [userTool('a'), createToolkit({ name: 'kit', tools: [userTool('b')] })],
        expose: [userTool('c')],
        embedding: {
          model: 'offline/hashed-bow',
          maxBatchSize: 64,
          topK: 2,
          minScore: 0.2,
          toolText: (c: { name: string }) => c.name,
        },
        topK: 3,
        enforceSearchBeforeCall: false,
        strategy: { select: () => [] },
      }),
    ).not.toThrow();
    expect(() => validateToolRoutingConfig({ embedding: new OfflineEmbeddingModel() })).not.toThrow();
    expect(() => validateToolRoutingConfig({ embedding: 'openai/text-embedding-3-small' })).not.toThrow();
  });

  it("refuses the built-ins in expose or pool with VoltAgent's message (toolkit tools included)", () => {
    const error = errorOf(() =>
      validateToolRoutingConfig({
        expose: [userTool('searchTools')],
        pool: [createToolkit({ name: 'kit', tools: [userTool('callTool')] })],
      }),
    );
    expect(error.message).toBe(
      'Tool routing reserves tool names callTool, searchTools. Remove them from toolRouting.expose|toolRouting.pool ' +
        'or rename the conflicting tools.',
    );
    expect(error.field).toBe('toolRouting.expose');
    expect(errorOf(() => validateToolRoutingConfig({ pool: [userTool('callTool')] })).message).toBe(
      'Tool routing reserves tool names callTool. Remove them from toolRouting.pool or rename the conflicting tools.',
    );
  });

  it('is what the Agent constructor runs: a bad config fails at definition time', () => {
    expect(() => new Agent({ name: 'a', instructions: 'x', toolRouting: { expose: [userTool('callTool')] } })).toThrow(
      /reserves tool names callTool/,
    );
    expect(() => new Agent({ name: 'a', instructions: 'x', toolRouting: { topK: 0 } })).toThrow(
      'toolRouting.topK must be an integer from 1 to 20; got number 0.',
    );
    // A user tool named like a built-in is fine when it is registered normally: it wins over the built-in.
    expect(
      () => new Agent({ name: 'a', instructions: 'x', tools: [userTool('searchTools')], toolRouting: {} }),
    ).not.toThrow();
  });

  it('bounds topK, checks booleans, and names unknown keys', () => {
    expect(errorOf(() => validateToolRoutingConfig({ topK: MAX_TOOL_SEARCH_TOP_K + 1 })).message).toContain(
      'toolRouting.topK must be an integer from 1 to 20; got number 21.',
    );
    expect(errorOf(() => validateToolRoutingConfig({ topK: 1.5 })).field).toBe('toolRouting.topK');
    expect(errorOf(() => validateToolRoutingConfig({ enforceSearchBeforeCall: 'yes' })).message).toBe(
      "toolRouting.enforceSearchBeforeCall must be true or false; got 'yes'.",
    );
    expect(errorOf(() => validateToolRoutingConfig({ topk: 3 })).message).toBe(
      "Unknown toolRouting option 'topk'. Known options: pool, expose, embedding, topK, enforceSearchBeforeCall, strategy.",
    );
    expect(errorOf(() => validateToolRoutingConfig({ pool: 'all' })).message).toContain('must be an array');
    expect(errorOf(() => validateToolRoutingConfig([])).message).toContain('toolRouting must be an object');
    expect(errorOf(() => validateToolRoutingConfig({ strategy: {} })).field).toBe('toolRouting.strategy');
  });

  it('checks the embedding setting in all three forms', () => {
    expect(errorOf(() => validateToolRoutingConfig({ embedding: 'text-embedding-3-small' })).message).toContain(
      "is not a 'provider/model' string",
    );
    expect(errorOf(() => validateToolRoutingConfig({ embedding: 42 })).message).toContain('must be an embedding model');
    expect(errorOf(() => validateToolRoutingConfig({ embedding: { model: {} } })).field).toBe(
      'toolRouting.embedding.model',
    );
    expect(
      errorOf(() => validateToolRoutingConfig({ embedding: { model: 'offline/x', maxBatchSize: 0 } })).message,
    ).toBe('toolRouting.embedding.maxBatchSize must be an integer from 1 to 2048; got number 0.');
    expect(errorOf(() => validateToolRoutingConfig({ embedding: { model: 'offline/x', minScore: 1 } })).field).toBe(
      'toolRouting.embedding.minScore',
    );
    expect(
      errorOf(() => validateToolRoutingConfig({ embedding: { model: 'offline/x', toolText: 'name' } })).field,
    ).toBe('toolRouting.embedding.toolText');
    expect(
      errorOf(() => validateToolRoutingConfig({ embedding: { model: 'offline/x', normalize: true } })).message,
    ).toBe(
      "Unknown toolRouting.embedding option 'normalize'. Known options: model, maxBatchSize, topK, toolText, minScore, cacheKey, lexicalWeight.",
    );
    for (const lexicalWeight of [-0.1, 1.5, Number.NaN, '0.2']) {
      expect(
        errorOf(() => validateToolRoutingConfig({ embedding: { model: 'offline/x', lexicalWeight } })).message,
      ).toMatch(
        /^toolRouting\.embedding\.lexicalWeight must be a number from 0 \(cosine similarity alone\) to 1; got /,
      );
    }
    for (const lexicalWeight of [0, 0.2, 1]) {
      expect(() => validateToolRoutingConfig({ embedding: { model: 'offline/x', lexicalWeight } })).not.toThrow();
    }
  });

  it("checks a run's override: booleans, bounded name lists, a model string only", () => {
    expect(() => validateRunToolRoutingOverride(true)).not.toThrow();
    expect(() => validateRunToolRoutingOverride(false)).not.toThrow();
    expect(() => validateRunToolRoutingOverride({ pool: ['a'], expose: ['b'], topK: 2 })).not.toThrow();
    expect(errorOf(() => validateRunToolRoutingOverride({ pool: ['searchTools'] })).message).toContain(
      'reserves tool names searchTools',
    );
    expect(errorOf(() => validateRunToolRoutingOverride({ pool: new Array(10_001).fill('x') })).message).toContain(
      'at most 10000 tool names',
    );
    expect(errorOf(() => validateRunToolRoutingOverride({ expose: ['x'.repeat(257)] })).field).toBe(
      'toolRouting.expose',
    );
    expect(errorOf(() => validateRunToolRoutingOverride({ embedding: new OfflineEmbeddingModel() })).message).toContain(
      'model objects stay on the worker',
    );
    expect(errorOf(() => validateRunToolRoutingOverride({ strategy: {} })).message).toContain(
      "Unknown toolRouting option 'strategy'",
    );
    expect(errorOf(() => validateRunToolRoutingOverride('on')).field).toBe('toolRouting');
  });

  it('errors are recognised across copies by their marker', () => {
    const error = new ToolRoutingConfigError('toolRouting.topK', 'bad');
    expect(ToolRoutingConfigError.isInstance(error)).toBe(true);
    expect(ToolRoutingConfigError.isInstance(new Error('bad'))).toBe(false);
    expect(error.name).toBe('ToolRoutingConfigError');
  });
});

describe('effectiveTopK', () => {
  it('takes the call, then the config, then the embedding config, then 1', () => {
    expect(effectiveTopK({ call: 3, config: 1, embedding: 2 })).toBe(3);
    expect(effectiveTopK({ config: 1, embedding: 2 })).toBe(1);
    expect(effectiveTopK({ embedding: 2 })).toBe(2);
    expect(effectiveTopK({})).toBe(1);
  });

  it('caps at the maximum and ignores call values that are not positive numbers', () => {
    expect(effectiveTopK({ call: 500 })).toBe(MAX_TOOL_SEARCH_TOP_K);
    expect(effectiveTopK({ call: 0, config: 4 })).toBe(4);
    expect(effectiveTopK({ call: -2, config: 4 })).toBe(4);
    expect(effectiveTopK({ call: '5', config: 4 })).toBe(4);
    expect(effectiveTopK({ call: Number.NaN })).toBe(1);
    expect(effectiveTopK({ call: 2.9 })).toBe(2);
  });
});
