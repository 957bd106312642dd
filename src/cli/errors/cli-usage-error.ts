import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.CliUsageError');

/**
 * The command line is wrong: an unknown command or option, a missing argument, or a value that does not parse.
 * Nothing was sent to Temporal. The message says what is wrong; `command` names the command whose help applies.
 */
export class CliUsageError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** The command the user was typing, when known, so the CLI can point at `durable-agent help <command>`. */
  readonly command: string | undefined;

  constructor(message: string, options: { command?: string; cause?: unknown } = {}) {
    super({ code: 'Cli.Usage', message, cause: options.cause });
    this.name = 'CliUsageError';
    this.command = options.command;
  }

  /** True for a {@link CliUsageError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is CliUsageError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
