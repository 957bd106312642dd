const MARKER = Symbol.for('durable-agent.error.ConnectionConfigError');

/**
 * Temporal connection settings cannot be used as configured: a profile that does not exist, a configuration
 * file that does not parse or cannot be read, a certificate file that is missing. Nothing was connected; the
 * message names the setting and where it came from.
 */
export class ConnectionConfigError extends Error {
  private readonly [MARKER] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConnectionConfigError';
  }

  /** Cross-realm identity check. */
  static isInstance(error: unknown): error is ConnectionConfigError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
