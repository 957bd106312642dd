import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.ToolRoutingConfigError');

/**
 * A `toolRouting` configuration (an agent's, a router's or a run's override) is invalid: a reserved name in
 * `pool`/`expose`, a `topK` that is not a positive integer, an unknown embedding model, a pool name that is not a
 * tool. The message names the field and says how to fix it.
 */
export class ToolRoutingConfigError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** The offending field, e.g. `toolRouting.pool`. */
  readonly field: string;

  constructor(field: string, message: string) {
    super({ code: 'Routing.InvalidConfig', message });
    this.name = 'ToolRoutingConfigError';
    this.field = field;
  }

  /** True for a {@link ToolRoutingConfigError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is ToolRoutingConfigError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
