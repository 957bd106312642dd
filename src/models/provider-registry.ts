import { createOpenAI, type OpenAIProvider } from '@ai-sdk/openai';
import type { EmbeddingModel, LanguageModel } from 'ai';
import { InvalidModelIdError } from './errors/invalid-model-id-error.js';
import { MissingApiKeyError } from './errors/missing-api-key-error.js';
import { UnknownProviderError } from './errors/unknown-provider-error.js';
import { registerSecret } from '../secrets/redact-secrets.js';
import {
  OFFLINE_DEMO_MODEL_ID,
  OFFLINE_PROVIDER,
  OfflineDemoModel,
  OfflineEmbeddingModel,
  type OfflineDemoModelOptions,
} from './offline-model.js';

/** A language model object (any AI SDK spec version): what a model string resolves to. */
export type ResolvedLanguageModel = Exclude<LanguageModel, string>;

/** An embedding model object (any AI SDK spec version): what an embedding model string resolves to. */
export type ResolvedEmbeddingModel = Exclude<EmbeddingModel, string>;

/** Makes a language model from the part of a model string after `provider/`. */
export type LanguageModelFactory = (modelId: string) => ResolvedLanguageModel;

/** Makes an embedding model from the part of a model string after `provider/`. */
export type EmbeddingModelFactory = (modelId: string) => ResolvedEmbeddingModel;

/**
 * A provider's model factories. Any AI SDK provider instance has this shape, so `createAnthropic({ apiKey })` can
 * be registered as is.
 */
export interface ModelProvider {
  languageModel?: LanguageModelFactory;
  embeddingModel?: EmbeddingModelFactory;
}

/** Settings of the built-in OpenAI provider. Unset fields fall back to the environment at resolution time. */
export interface OpenAIProviderSettings {
  /** Default: `OPENAI_API_KEY`. */
  apiKey?: string;
  /** Any OpenAI-compatible server, e.g. `http://localhost:11434/v1`. Default: `OPENAI_BASE_URL`, else OpenAI. */
  baseURL?: string;
  headers?: Record<string, string>;
  organization?: string;
  project?: string;
  /**
   * Which OpenAI API `openai/<model>` uses. Default `chat` (Chat Completions): it is what nearly every
   * OpenAI-compatible server (vLLM, Ollama, LiteLLM, llama.cpp, LM Studio) implements. `responses` is OpenAI's
   * newer API, needed for OpenAI's provider tools such as web search; `openai-responses/<model>` selects it per
   * model regardless of this setting.
   */
  api?: 'chat' | 'responses';
}

/** Constructor options of {@link ProviderRegistry}. */
export interface ProviderRegistryOptions {
  /** Settings of the built-in `openai` provider. */
  openai?: OpenAIProviderSettings;
  /**
   * Where `OPENAI_API_KEY` and `OPENAI_BASE_URL` are read from, at each resolution (so a worker started before the
   * variable was set, or a test that changes it, sees the current value). Default `process.env`.
   */
  env?: Record<string, string | undefined>;
  /** Options of the built-in `offline/demo` model; `false` leaves the `offline` provider out. */
  offline?: OfflineDemoModelOptions | false;
}

/** Provider name of the built-in OpenAI provider (Chat Completions unless configured otherwise). */
export const OPENAI_PROVIDER = 'openai';

/** Provider name that always uses OpenAI's Responses API: `openai-responses/gpt-4.1`. */
export const OPENAI_RESPONSES_PROVIDER = 'openai-responses';

/** Parses `provider/model`. Only the first `/` separates: `openrouter/meta-llama/llama-3` has model `meta-llama/llama-3`. */
export function parseModelRef(ref: string): { provider: string; modelId: string } {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) throw new InvalidModelIdError(ref);
  return { provider: ref.slice(0, slash), modelId: ref.slice(slash + 1) };
}

/**
 * The model string a worker uses when an agent does not name one: `AGENT_MODEL` if set, else `openai/gpt-4o-mini`
 * when `OPENAI_API_KEY` is set, else the offline stand-in `offline/demo`.
 */
export function defaultModelRef(env: Record<string, string | undefined> = process.env): string {
  if (env.AGENT_MODEL) return env.AGENT_MODEL;
  return env.OPENAI_API_KEY ? 'openai/gpt-4o-mini' : `${OFFLINE_PROVIDER}/${OFFLINE_DEMO_MODEL_ID}`;
}

/**
 * Resolves model strings (`openai/gpt-4o-mini`, `offline/demo`, `<your provider>/<model>`) to AI SDK model objects
 * on the worker. Model strings are what agents, run options and history carry; keys and clients stay here, in the
 * worker, and never enter workflow input or history. Model objects pass through unchanged.
 *
 * Built in: `openai` (Chat Completions, key and base URL from the environment at resolution time),
 * `openai-responses` (OpenAI's Responses API) and `offline` (`offline/demo`, a rule-based stand-in that needs no
 * key, and `offline/<id>` hashed bag-of-words embeddings).
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, ModelProvider>();
  private readonly options: ProviderRegistryOptions;

  constructor(options: ProviderRegistryOptions = {}) {
    this.options = options;
    this.providers.set(OPENAI_PROVIDER, {
      languageModel: (modelId) => {
        const openai = this.openai(`${OPENAI_PROVIDER}/${modelId}`);
        return this.options.openai?.api === 'responses' ? openai.responses(modelId) : openai.chat(modelId);
      },
      embeddingModel: (modelId) => this.openai(`${OPENAI_PROVIDER}/${modelId}`).embedding(modelId),
    });
    this.providers.set(OPENAI_RESPONSES_PROVIDER, {
      languageModel: (modelId) => this.openai(`${OPENAI_RESPONSES_PROVIDER}/${modelId}`).responses(modelId),
      embeddingModel: (modelId) => this.openai(`${OPENAI_RESPONSES_PROVIDER}/${modelId}`).embedding(modelId),
    });
    if (options.offline !== false) {
      const offline = options.offline ?? {};
      this.providers.set(OFFLINE_PROVIDER, {
        // Every id gives the same rule-based model; `offline/demo` is the documented name.
        languageModel: (modelId) => new OfflineDemoModel({ ...offline, modelId }),
        embeddingModel: (modelId) => new OfflineEmbeddingModel({ modelId }),
      });
    }
  }

  /**
   * Adds a provider, or replaces one with the same name (including a built-in). A function registers language
   * models only; an object may also give embedding models (an AI SDK provider instance fits).
   *
   * @example registry.register('anthropic', createAnthropic({ apiKey }))
   * @example registry.register('local', (id) => createOpenAI({ baseURL: 'http://localhost:8000/v1' }).chat(id))
   */
  register(name: string, provider: LanguageModelFactory | ModelProvider): this {
    if (!name || name.includes('/')) {
      throw new TypeError(`Invalid provider name '${name}': it must be non-empty and contain no '/'.`);
    }
    const entry: ModelProvider =
      typeof provider === 'function'
        ? { languageModel: provider }
        : {
            // Bound, so a provider instance's methods keep their `this`.
            languageModel: provider.languageModel?.bind(provider),
            embeddingModel: provider.embeddingModel?.bind(provider),
          };
    this.providers.set(name, entry);
    return this;
  }

  /** True when a provider with this name is registered. */
  has(name: string): boolean {
    return this.providers.has(name);
  }

  /** Names of the registered providers, sorted. */
  providerNames(): string[] {
    return [...this.providers.keys()].sort();
  }

  /**
   * The language model for a `provider/model` string, or the given model object unchanged. Without a model (an
   * agent that names none), the {@link defaultModelRef} of the registry's environment: `AGENT_MODEL`, else
   * `openai/gpt-4o-mini` with a key, else `offline/demo`.
   *
   * @throws InvalidModelIdError when the string is not `provider/model`.
   * @throws UnknownProviderError when no provider has that name (the message lists the known ones).
   * @throws MissingApiKeyError for `openai/...` without `OPENAI_API_KEY` or an explicit key.
   */
  resolveLanguageModel(model?: string | ResolvedLanguageModel): ResolvedLanguageModel {
    if (model !== undefined && typeof model !== 'string') return model;
    const ref = model ?? defaultModelRef(this.options.env ?? process.env);
    const { provider, modelId } = parseModelRef(ref);
    const factory = this.providers.get(provider)?.languageModel;
    if (!factory) {
      throw new UnknownProviderError({ provider, modelRef: ref, knownProviders: this.namesWith('languageModel') });
    }
    return factory(modelId);
  }

  /**
   * The embedding model for a `provider/model` string (`openai/text-embedding-3-small`, `offline/hashed-bow`), or
   * the given model object unchanged. Throws like {@link resolveLanguageModel}.
   */
  resolveEmbeddingModel(model: string | ResolvedEmbeddingModel): ResolvedEmbeddingModel {
    if (typeof model !== 'string') return model;
    const { provider, modelId } = parseModelRef(model);
    const factory = this.providers.get(provider)?.embeddingModel;
    if (!factory) {
      throw new UnknownProviderError({
        provider,
        modelRef: model,
        knownProviders: this.namesWith('embeddingModel'),
        kind: 'embedding',
      });
    }
    return factory(modelId);
  }

  private namesWith(kind: keyof ModelProvider): string[] {
    return this.providerNames().filter((name) => this.providers.get(name)?.[kind] !== undefined);
  }

  /** An OpenAI provider built from the settings and the environment as they are now. */
  private openai(modelRef: string): OpenAIProvider {
    const settings = this.options.openai ?? {};
    const env = this.options.env ?? process.env;
    const apiKey = settings.apiKey || env.OPENAI_API_KEY || undefined;
    if (!apiKey) throw new MissingApiKeyError({ provider: OPENAI_PROVIDER, envVar: 'OPENAI_API_KEY', modelRef });
    // Remembered so that a provider echoing them back in an error cannot put them into history.
    registerSecret(apiKey);
    for (const value of Object.values(settings.headers ?? {})) registerSecret(value);
    return createOpenAI({
      apiKey,
      baseURL: settings.baseURL || env.OPENAI_BASE_URL || undefined,
      headers: settings.headers,
      organization: settings.organization,
      project: settings.project,
    });
  }
}
