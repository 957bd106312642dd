import { DurableAgentError } from '../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.TelemetryConfigError');

/**
 * Thrown at startup when an OpenTelemetry or metrics environment variable asks for something durable-agent cannot
 * set up; the message names the variable and the values it accepts.
 */
export class TelemetryConfigError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** The environment variable at fault. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super({ code: 'Telemetry.InvalidConfig', message });
    this.name = 'TelemetryConfigError';
    this.variable = variable;
  }

  /** True for a {@link TelemetryConfigError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is TelemetryConfigError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
