const MARKER = Symbol.for('durable-agent.error.RunRequestRejectedError');

/**
 * A run refused a request (an approval or a tool result) before recording anything: the id is unknown, already
 * decided, or the run is not waiting for it. The message says which.
 */
export class RunRequestRejectedError extends Error {
  private readonly [MARKER] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RunRequestRejectedError';
  }

  /** Cross-realm identity check. */
  static isInstance(error: unknown): error is RunRequestRejectedError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
