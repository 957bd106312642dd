const MARKER = Symbol.for('durable-agent.error.ClientHTTPError');

/**
 * An error meant for the caller of a run, carrying an HTTP status and a stable code (for example a tool refusing
 * a user on their plan). The argument order follows VoltAgent's `ClientHTTPError(name, httpStatus, code, message)`.
 */
export class ClientHTTPError extends Error {
  // A registry-wide symbol rather than `instanceof`: two copies of this package (or a value that crossed a realm)
  // still recognise each other's errors.
  private readonly [MARKER] = true;

  constructor(
    name: string,
    /** HTTP status a server should answer with, e.g. 403. */
    readonly httpStatus: number,
    /** Stable machine-readable code, e.g. `TOOL_FORBIDDEN`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = name;
  }
}

/** True for any {@link ClientHTTPError} (including a {@link ToolDeniedError}), from any copy of this package. */
export function isClientHTTPError(value: unknown): value is ClientHTTPError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
