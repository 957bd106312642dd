import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.RunWithoutStreamError');

/**
 * `run.stream()` of a run started before durable-agent 0.4.0: such a run has no stream (see docs/durable-runs.md,
 * "The run's stream"). Its events are read with `run.events()`.
 */
export class RunWithoutStreamError extends DurableAgentError {
  private readonly [MARKER] = true;

  constructor(readonly workflowId: string) {
    super({
      code: 'Run.NoStream',
      message: `Run ${workflowId} was started before durable-agent 0.4.0 and has no stream; read its events with run.events().`,
    });
    this.name = 'RunWithoutStreamError';
  }

  /** True for a {@link RunWithoutStreamError} from any copy of this package or realm. */
  static override isInstance(error: unknown): error is RunWithoutStreamError {
    return DurableAgentError.hasMarker(error, MARKER);
  }
}
