const MARKER = Symbol.for('durable-agent.error.TelemetryConfigError');

/**
 * Thrown at startup when an OpenTelemetry or metrics environment variable asks for something durable-agent cannot
 * set up; the message names the variable and the values it accepts.
 */
export class TelemetryConfigError extends Error {
  private readonly [MARKER] = true;
  /** The environment variable at fault. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(message);
    this.name = 'TelemetryConfigError';
    this.variable = variable;
  }
}

/** True for a {@link TelemetryConfigError} from any copy of this package or realm. */
export function isTelemetryConfigError(value: unknown): value is TelemetryConfigError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
