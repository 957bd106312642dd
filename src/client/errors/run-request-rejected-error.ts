import { DurableAgentError } from '../../errors/durable-agent-error.js';
import type { RefusalCode } from '../../protocol/refusal-codes.js';

const MARKER = Symbol.for('durable-agent.error.RunRequestRejectedError');

/**
 * A run refused a request (an approval decision, a client-side tool result, an elicitation answer) before recording
 * anything: the id is unknown, already decided, the token does not match, the run has ended... The message says
 * which for a person; `code` says it for a program (one of {@link RefusalCode}, e.g. `Approval.AlreadyDecided`,
 * listed in docs/errors.md).
 */
export class RunRequestRejectedError extends DurableAgentError {
  private readonly [MARKER] = true;

  declare readonly code: RefusalCode;

  constructor(message: string, options: { code: RefusalCode; cause?: unknown }) {
    super({ code: options.code, message, cause: options.cause });
    this.name = 'RunRequestRejectedError';
  }

  /** True for a {@link RunRequestRejectedError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is RunRequestRejectedError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
