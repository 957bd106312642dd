import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.MissingApiKeyError');

/**
 * A built-in provider was asked for a model but has no API key. Raised when the model is resolved on the worker,
 * before any request, so the message can say exactly which variable to set.
 */
export class MissingApiKeyError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** The provider that needs a key, e.g. `openai`. */
  readonly provider: string;
  /** The environment variable that would supply it, e.g. `OPENAI_API_KEY`. */
  readonly envVar: string;

  constructor({ provider, envVar, modelRef }: { provider: string; envVar: string; modelRef: string }) {
    super({
      code: 'Model.MissingApiKey',
      message:
        `Model '${modelRef}' needs an API key: set ${envVar} in the worker's environment (or pass the key to ` +
        `ProviderRegistry), or use the offline stand-in model 'offline/demo' to run without a key.`,
    });
    this.name = 'MissingApiKeyError';
    this.provider = provider;
    this.envVar = envVar;
  }

  /** True for a {@link MissingApiKeyError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is MissingApiKeyError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
