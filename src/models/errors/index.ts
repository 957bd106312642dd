export { InvalidModelIdError } from './invalid-model-id-error.js';
export { MissingApiKeyError } from './missing-api-key-error.js';
export { ScriptedModelExhaustedError } from './scripted-model-exhausted-error.js';
export { UnknownProviderError } from './unknown-provider-error.js';
