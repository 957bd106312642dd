const MARKER = Symbol.for('durable-agent.error.CliUsageError');

/**
 * The command line is wrong: an unknown command or option, a missing argument, or a value that does not parse.
 * Nothing was sent to Temporal. The message says what is wrong; `command` names the command whose help applies.
 */
export class CliUsageError extends Error {
  private readonly [MARKER] = true;
  /** The command the user was typing, when known, so the CLI can point at `durable-agent help <command>`. */
  readonly command: string | undefined;

  constructor(message: string, options: { command?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliUsageError';
    this.command = options.command;
  }

  /** Cross-realm identity check. */
  static isInstance(error: unknown): error is CliUsageError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
