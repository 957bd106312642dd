const MARKER = Symbol.for('durable-agent.error.LocalToolError');

/**
 * A tool (or an agent's tool defaults) asks for `activity: { local: true }` where a local activity cannot keep the
 * tool's promises. A local activity runs inside the run's workflow task on the same worker and has no heartbeats:
 * a streaming tool's yields could not be checkpointed, and a tool needing approval or a client-side tool does not run
 * when the model calls it. Thrown when the tool or agent is defined.
 */
export class LocalToolError extends Error {
  private readonly [MARKER] = true;

  constructor(
    /** The tool, or the agent whose tool defaults ask for local activities. */
    readonly subject: string,
    message: string,
  ) {
    super(message);
    this.name = 'LocalToolError';
  }

  /** Cross-realm identity check. */
  static isInstance(error: unknown): error is LocalToolError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
