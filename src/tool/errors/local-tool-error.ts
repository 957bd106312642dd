import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.LocalToolError');

/**
 * A tool (or an agent's tool defaults) asks for `activity: { local: true }` where a local activity cannot keep the
 * tool's promises. A local activity runs inside the run's workflow task on the same worker and has no heartbeats:
 * a streaming tool's yields could not be checkpointed, and a tool needing approval or a client-side tool does not run
 * when the model calls it. Thrown when the tool or agent is defined.
 */
export class LocalToolError extends DurableAgentError {
  private readonly [MARKER] = true;

  constructor(
    /** The tool, or the agent whose tool defaults ask for local activities. */
    readonly subject: string,
    message: string,
  ) {
    super({ code: 'Tool.LocalNotAllowed', message });
    this.name = 'LocalToolError';
  }

  /** True for a {@link LocalToolError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is LocalToolError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
