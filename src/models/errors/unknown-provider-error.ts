import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.UnknownProviderError');

/**
 * A model string names a provider the registry does not know. The message lists the known providers, so a typo
 * (`opneai/gpt-4o`) or a forgotten `registry.register(...)` is obvious at once.
 */
export class UnknownProviderError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** The provider part of the model string, e.g. `anthropic` in `anthropic/claude-sonnet-4`. */
  readonly provider: string;
  /** The full model string that failed to resolve. */
  readonly modelRef: string;
  /** Providers registered at the time of the lookup. */
  readonly knownProviders: string[];

  constructor({
    provider,
    modelRef,
    knownProviders,
    kind = 'language',
  }: {
    provider: string;
    modelRef: string;
    knownProviders: string[];
    kind?: 'language' | 'embedding';
  }) {
    const known = knownProviders.length > 0 ? knownProviders.join(', ') : '(none)';
    super({
      code: 'Model.UnknownProvider',
      message:
        `Unknown ${kind} model provider '${provider}' in '${modelRef}'. Known providers: ${known}. ` +
        `Register it with registry.register('${provider}', ...) on the worker.`,
    });
    this.name = 'UnknownProviderError';
    this.provider = provider;
    this.modelRef = modelRef;
    this.knownProviders = [...knownProviders];
  }

  /** True for a {@link UnknownProviderError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is UnknownProviderError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
