const MARKER = Symbol.for('durable-agent.error.CliFailure');

/**
 * A command was well-formed but could not be carried out (no such run, the run refused the request, no worker
 * answered). The message is complete and meant for a person; the CLI prints it and exits with status 1.
 */
export class CliFailure extends Error {
  private readonly [MARKER] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliFailure';
  }

  /** Cross-realm identity check. */
  static isInstance(error: unknown): error is CliFailure {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
