import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.ConnectionConfigError');

/**
 * Temporal connection settings cannot be used as configured: a profile that does not exist, a configuration
 * file that does not parse or cannot be read, a certificate file that is missing. Nothing was connected; the
 * message names the setting and where it came from.
 */
export class ConnectionConfigError extends DurableAgentError {
  private readonly [MARKER] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super({ code: 'Connection.InvalidConfig', message, cause: options?.cause });
    this.name = 'ConnectionConfigError';
  }

  /** True for a {@link ConnectionConfigError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is ConnectionConfigError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
