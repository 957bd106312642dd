// The marker every durable-agent error carries. A registry-wide symbol rather than `instanceof`: two copies of this
// package (two versions in one `node_modules`, or a value from another realm) still recognise each other's errors.
const BASE_MARKER = Symbol.for('durable-agent.error');

/** What every {@link DurableAgentError} is built from. */
export interface DurableAgentErrorOptions {
  /** Stable `Area.Reason` code (docs/errors.md lists them all). */
  code: string;
  message: string;
  cause?: unknown;
}

/**
 * The base of every error durable-agent throws to a caller. `code` is a stable `Area.Reason` string (for example
 * `Client.NoWorker` or `Approval.AlreadyDecided`) that a program or an HTTP layer can switch on without parsing the
 * message; docs/errors.md lists every code.
 *
 * Test identity with the static `isInstance` of the class you expect (`NoWorkerError.isInstance(error)`), or
 * `DurableAgentError.isInstance(error)` for any of them: unlike `instanceof`, it also works when two copies of the
 * package are loaded.
 */
export class DurableAgentError extends Error {
  private readonly [BASE_MARKER] = true;
  /** Stable `Area.Reason` code of this failure. */
  readonly code: string;

  constructor({ code, message, cause }: DurableAgentErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'DurableAgentError';
    this.code = code;
  }

  /** True for any durable-agent error, from any copy of this package or realm. */
  static isInstance(value: unknown): value is DurableAgentError {
    return DurableAgentError.hasMarker(value, BASE_MARKER);
  }

  /**
   * True when `value` carries `marker`. Each subclass calls it from its own static `isInstance` with its own
   * `Symbol.for('durable-agent.error.<Name>')`, which errors of earlier versions (before this base) carry too.
   */
  protected static hasMarker(value: unknown, marker: symbol): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
