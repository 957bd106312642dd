import { CliFailure } from './cli-failure.js';

const MARKER = Symbol.for('durable-agent.error.NoWorkerError');

/**
 * No worker answered a query or decision for a run in time. Queries and update validators run in a worker, so
 * without one polling the run's task queue nothing can answer; the message says which queue to start one on.
 */
export class NoWorkerError extends CliFailure {
  private readonly [MARKER] = true;
  readonly runId: string | undefined;
  readonly taskQueue: string;

  constructor(context: { runId?: string; taskQueue: string }, options?: { cause?: unknown }) {
    super(
      `No worker answered for ${context.runId ? `run '${context.runId}'` : 'the run'}. A worker answers queries ` +
        `and decisions for its runs: start one polling task queue '${context.taskQueue}' (e.g. npm run worker) ` +
        'and try again.',
      options,
    );
    this.name = 'NoWorkerError';
    this.runId = context.runId;
    this.taskQueue = context.taskQueue;
  }

  /** Cross-realm identity check. */
  static override isInstance(error: unknown): error is NoWorkerError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
