const MARKER = Symbol.for('durable-agent.error.ToolRoutingConfigError');

/**
 * A `toolRouting` configuration (an agent's, a router's or a run's override) is invalid: a reserved name in
 * `pool`/`expose`, a `topK` that is not a positive integer, an unknown embedding model, a pool name that is not a
 * tool. The message names the field and says how to fix it.
 */
export class ToolRoutingConfigError extends Error {
  // A registry-wide symbol rather than `instanceof`: two copies of this package still recognise each other's errors.
  private readonly [MARKER] = true;
  /** The offending field, e.g. `toolRouting.pool`. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.name = 'ToolRoutingConfigError';
    this.field = field;
  }
}

/** True for a {@link ToolRoutingConfigError} from any copy of this package or realm. */
export function isToolRoutingConfigError(value: unknown): value is ToolRoutingConfigError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
