// Keeping secrets out of what leaves the worker: register them as they are configured, redact text before it goes.
export { REDACTED, redactSecrets, redactSecretsDeep, registerSecret } from './redact-secrets.js';
