import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.CliFailure');

/**
 * A command was well-formed but could not be carried out (no such run, the run refused the request, no worker
 * answered). The message is complete and meant for a person; the CLI prints it and exits with status 1.
 */
export class CliFailure extends DurableAgentError {
  private readonly [MARKER] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super({ code: 'Cli.Failed', message, cause: options?.cause });
    this.name = 'CliFailure';
  }

  /** True for a {@link CliFailure} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is CliFailure {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
