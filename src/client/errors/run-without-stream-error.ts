const MARKER = Symbol.for('durable-agent.error.RunWithoutStreamError');

/**
 * `run.stream()` of a run started before durable-agent 0.4.0: such a run has no stream (see docs/durable-runs.md,
 * "The run's stream"). Its events are read with `run.events()`.
 */
export class RunWithoutStreamError extends Error {
  private readonly [MARKER] = true;

  constructor(readonly workflowId: string) {
    super(
      `Run ${workflowId} was started before durable-agent 0.4.0 and has no stream; read its events with run.events().`,
    );
    this.name = 'RunWithoutStreamError';
  }

  /** Cross-realm identity check. */
  static isInstance(error: unknown): error is RunWithoutStreamError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
