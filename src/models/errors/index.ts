export { InvalidModelIdError, isInvalidModelIdError } from './invalid-model-id-error.js';
export { MissingApiKeyError, isMissingApiKeyError } from './missing-api-key-error.js';
export { ScriptedModelExhaustedError, isScriptedModelExhaustedError } from './scripted-model-exhausted-error.js';
export { UnknownProviderError, isUnknownProviderError } from './unknown-provider-error.js';
