import { embed } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callModel } from '../../src/models/call-model.js';
import { InvalidModelIdError } from '../../src/models/errors/invalid-model-id-error.js';
import { MissingApiKeyError } from '../../src/models/errors/missing-api-key-error.js';
import { UnknownProviderError } from '../../src/models/errors/unknown-provider-error.js';
import { OfflineDemoModel, OfflineEmbeddingModel } from '../../src/models/offline-model.js';
import { defaultModelRef, parseModelRef, ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { startOpenAIFakeServer, type OpenAIFakeServer } from '../models/openai-fake-server.js';

describe('ProviderRegistry', () => {
  let server: OpenAIFakeServer;
  beforeAll(async () => {
    server = await startOpenAIFakeServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('resolves openai/<model> to a Chat Completions model configured from the environment', async () => {
    const env: Record<string, string | undefined> = { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: server.baseURL };
    const registry = new ProviderRegistry({ env });
    const model = registry.resolveLanguageModel('openai/gpt-4o-mini');
    expect(model).toMatchObject({ provider: 'openai.chat', modelId: 'gpt-4o-mini' });

    server.enqueue({ text: 'one' }, { text: 'two' });
    await callModel({ model, messages: [{ role: 'user', content: 'Hi' }] });
    // The environment is read at resolution time, not when the registry was built.
    env.OPENAI_API_KEY = 'sk-rotated';
    await callModel({
      model: registry.resolveLanguageModel('openai/gpt-4o'),
      messages: [{ role: 'user', content: 'Hi' }],
    });

    const [first, second] = server.chatRequests.slice(-2);
    expect(first?.headers.authorization).toBe('Bearer sk-env');
    expect(first?.body.model).toBe('gpt-4o-mini');
    expect(second?.headers.authorization).toBe('Bearer sk-rotated');
  });

  it('prefers explicit settings over the environment, and can use the Responses API', () => {
    const env = { OPENAI_API_KEY: 'sk-env' };
    const responses = new ProviderRegistry({ env, openai: { apiKey: 'sk-explicit', api: 'responses' } });
    expect(responses.resolveLanguageModel('openai/gpt-4.1')).toMatchObject({ provider: 'openai.responses' });
    const registry = new ProviderRegistry({ env });
    expect(registry.resolveLanguageModel('openai-responses/gpt-4.1')).toMatchObject({
      provider: 'openai.responses',
      modelId: 'gpt-4.1',
    });
  });

  it('without a key, says to set OPENAI_API_KEY or use the offline model', () => {
    const registry = new ProviderRegistry({ env: {} });
    expect(() => registry.resolveLanguageModel('openai/gpt-4o')).toThrow(MissingApiKeyError);
    expect(() => registry.resolveLanguageModel('openai/gpt-4o')).toThrow(/OPENAI_API_KEY.*offline\/demo/s);
  });

  it('names the known providers when the provider is unknown', () => {
    const registry = new ProviderRegistry({ env: {} });
    let error: unknown;
    try {
      registry.resolveLanguageModel('anthropic/claude-sonnet-4');
    } catch (e) {
      error = e;
    }
    expect(UnknownProviderError.isInstance(error)).toBe(true);
    expect((error as UnknownProviderError).message).toContain("Unknown language model provider 'anthropic'");
    expect((error as UnknownProviderError).message).toContain('Known providers: offline, openai, openai-responses');
  });

  it('rejects strings that are not provider/model', () => {
    const registry = new ProviderRegistry({ env: {} });
    expect(() => registry.resolveLanguageModel('gpt-4o')).toThrow(InvalidModelIdError);
    expect(() => registry.resolveLanguageModel('openai/')).toThrow(/expected 'provider\/model'/);
  });

  it('splits at the first slash only', () => {
    expect(parseModelRef('openrouter/meta-llama/llama-3-70b')).toEqual({
      provider: 'openrouter',
      modelId: 'meta-llama/llama-3-70b',
    });
  });

  it('registers providers as functions or provider objects, and passes model objects through', () => {
    const scripted = new ScriptedLanguageModel([{ text: 'hi' }]);
    const seen: string[] = [];
    const registry = new ProviderRegistry({ env: {} })
      .register('test', (modelId) => {
        seen.push(modelId);
        return scripted;
      })
      .register('both', {
        languageModel: () => new OfflineDemoModel(),
        embeddingModel: (id) => new OfflineEmbeddingModel({ modelId: id }),
      });

    expect(registry.resolveLanguageModel('test/any/thing')).toBe(scripted);
    expect(seen).toEqual(['any/thing']);
    expect(registry.resolveEmbeddingModel('both/mini')).toMatchObject({ provider: 'offline', modelId: 'mini' });
    expect(registry.resolveLanguageModel(scripted)).toBe(scripted);
    expect(registry.providerNames()).toEqual(['both', 'offline', 'openai', 'openai-responses', 'test']);
    // A function registers language models only.
    expect(() => registry.resolveEmbeddingModel('test/x')).toThrow(/Unknown embedding model provider 'test'/);
    expect(() => registry.register('a/b', () => scripted)).toThrow(/no '\/'/);
  });

  it('has the offline stand-ins built in, unless turned off', () => {
    const registry = new ProviderRegistry({ env: {} });
    expect(registry.resolveLanguageModel('offline/demo')).toBeInstanceOf(OfflineDemoModel);
    expect(registry.resolveEmbeddingModel('offline/hashed-bow')).toBeInstanceOf(OfflineEmbeddingModel);
    const strict = new ProviderRegistry({ env: {}, offline: false });
    expect(() => strict.resolveLanguageModel('offline/demo')).toThrow(UnknownProviderError);
  });

  it('resolves OpenAI embedding models against the configured server', async () => {
    const registry = new ProviderRegistry({ env: { OPENAI_API_KEY: 'sk-embed', OPENAI_BASE_URL: server.baseURL } });
    const model = registry.resolveEmbeddingModel('openai/text-embedding-3-small');
    const { embedding } = await embed({ model, value: 'weather in Paris', maxRetries: 0 });

    expect(embedding).toHaveLength(64);
    const request = server.embeddingRequests.at(-1);
    expect(request?.body).toMatchObject({ model: 'text-embedding-3-small', input: ['weather in Paris'] });
    expect(request?.headers.authorization).toBe('Bearer sk-embed');
  });

  it('resolves a missing model to the default from the environment', () => {
    expect(new ProviderRegistry({ env: {} }).resolveLanguageModel()).toBeInstanceOf(OfflineDemoModel);
    const withKey = new ProviderRegistry({ env: { OPENAI_API_KEY: 'k', AGENT_MODEL: 'openai/gpt-4.1-mini' } });
    expect(withKey.resolveLanguageModel(undefined)).toMatchObject({ provider: 'openai.chat', modelId: 'gpt-4.1-mini' });
  });

  it('picks a default model string from the environment', () => {
    expect(defaultModelRef({})).toBe('offline/demo');
    expect(defaultModelRef({ OPENAI_API_KEY: 'k' })).toBe('openai/gpt-4o-mini');
    expect(defaultModelRef({ OPENAI_API_KEY: 'k', AGENT_MODEL: 'openai/gpt-4.1' })).toBe('openai/gpt-4.1');
  });
});
