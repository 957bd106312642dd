import { DurableAgentError } from '../../errors/durable-agent-error.js';

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
export class TemporalConnectionError extends DurableAgentError {
  private readonly [MARKER] = true;
  readonly address: string;
  readonly namespace: string;
  readonly origin: string;
  readonly problem: string;
  readonly advice: string;

  constructor(details: TemporalConnectionErrorDetails, options?: { cause?: unknown }) {
    super({
      code: 'Connection.Failed',
      message:
        `Cannot connect to Temporal at ${details.address} (namespace '${details.namespace}'; ${details.origin}): ` +
        `${details.problem}. ${details.advice}`,
      cause: options?.cause,
    });
    this.name = 'TemporalConnectionError';
    this.address = details.address;
    this.namespace = details.namespace;
    this.origin = details.origin;
    this.problem = details.problem;
    this.advice = details.advice;
  }

  /** True for a {@link TemporalConnectionError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is TemporalConnectionError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
