const MARKER = Symbol.for('durable-agent.error.TemporalConnectionError');

/** What {@link TemporalConnectionError} carries besides its message. */
export interface TemporalConnectionErrorDetails {
  /** The address tried. */
  address: string;
  namespace: string;
  /** Where the settings came from, as the message says it (profile, file, variables). */
  origin: string;
  /** What went wrong, as found by probing the address (nothing listening, not TLS, untrusted certificate, …). */
  problem: string;
  /** What to check or change. */
  advice: string;
}

/**
 * A worker or client could not connect to Temporal. The message says where it tried, with which settings
 * (profile, configuration file, `TEMPORAL_*` variables, TLS), what went wrong and what to check.
 */
export class TemporalConnectionError extends Error {
  private readonly [MARKER] = true;
  readonly address: string;
  readonly namespace: string;
  readonly origin: string;
  readonly problem: string;
  readonly advice: string;

  constructor(details: TemporalConnectionErrorDetails, options?: { cause?: unknown }) {
    super(
      `Cannot connect to Temporal at ${details.address} (namespace '${details.namespace}'; ${details.origin}): ` +
        `${details.problem}. ${details.advice}`,
      options,
    );
    this.name = 'TemporalConnectionError';
    this.address = details.address;
    this.namespace = details.namespace;
    this.origin = details.origin;
    this.problem = details.problem;
    this.advice = details.advice;
  }

  /** Cross-realm identity check. */
  static isInstance(error: unknown): error is TemporalConnectionError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
