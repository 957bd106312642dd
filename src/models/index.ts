// Worker-side model layer: provider registry, the single-call model wrapper with failure classification, and the
// offline stand-in models (scripted test models are in durable-agent/testing). Never import this from workflow code (it loads the AI SDK).
export * from './errors/index.js';
export {
  callModel,
  type CallModelOptions,
  type FunctionToolSpec,
  type ModelCallResult,
  type ModelDelta,
  type ModelDeltaListener,
  type ModelToolChoice,
  type ProviderToolSpec,
  type RawToolCall,
  type ToolSpec,
} from './call-model.js';
export {
  classifyModelError,
  isAbortError,
  ModelFailureType,
  retryAfterMs,
  type ModelFailureTypeName,
} from './classify-model-error.js';
export {
  embedText,
  OFFLINE_DEMO_MODEL_ID,
  OFFLINE_PROVIDER,
  OfflineDemoModel,
  OfflineEmbeddingModel,
  type OfflineDemoModelOptions,
  type OfflineEmbeddingModelOptions,
} from './offline-model.js';
export {
  defaultModelRef,
  OPENAI_PROVIDER,
  OPENAI_RESPONSES_PROVIDER,
  parseModelRef,
  ProviderRegistry,
  type EmbeddingModelFactory,
  type LanguageModelFactory,
  type ModelProvider,
  type OpenAIProviderSettings,
  type ProviderRegistryOptions,
  type ResolvedEmbeddingModel,
  type ResolvedLanguageModel,
} from './provider-registry.js';
