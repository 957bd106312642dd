// `durable-agent/testing`: test doubles and a real server for tests — scripted and offline models, and the Temporal
// dev server launcher.
export {
  ScriptedLanguageModel,
  type ScriptedErrorSpec,
  type ScriptedLanguageModelOptions,
  type ScriptedModelScript,
  type ScriptedReply,
  type ScriptedRequest,
  type ScriptedStep,
  type ScriptedToolCall,
  type StepSelection,
} from '../models/scripted-model.js';
export {
  OFFLINE_DEMO_MODEL_ID,
  OFFLINE_PROVIDER,
  OfflineDemoModel,
  OfflineEmbeddingModel,
  type OfflineDemoModelOptions,
  type OfflineEmbeddingModelOptions,
} from '../models/offline-model.js';
export {
  ensureTemporalBinary,
  resolveTemporalBinary,
  startDevServer,
  temporalCacheDir,
  type DevServer,
  type DevServerOptions,
} from '../worker/dev-server.js';
