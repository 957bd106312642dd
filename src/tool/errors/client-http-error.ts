import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.ClientHTTPError');

/**
 * An error meant for the caller of a run, carrying an HTTP status and a stable code (for example a tool refusing
 * a user on their plan). The argument order follows VoltAgent's `ClientHTTPError(name, httpStatus, code, message)`.
 */
export class ClientHTTPError extends DurableAgentError {
  private readonly [MARKER] = true;

  constructor(
    name: string,
    /** HTTP status a server should answer with, e.g. 403. */
    readonly httpStatus: number,
    /**
     * Stable machine-readable code chosen by the thrower, e.g. `TOOL_FORBIDDEN` (VoltAgent's convention, so it is
     * the one `code` in the library that is not of the form `Area.Reason`).
     */
    code: string,
    message: string,
  ) {
    super({ code, message });
    this.name = name;
  }

  /** True for a {@link ClientHTTPError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is ClientHTTPError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
