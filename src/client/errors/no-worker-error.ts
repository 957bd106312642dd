import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.NoWorkerError');

/** What {@link NoWorkerError} knows about the unanswered request. */
export interface NoWorkerErrorDetails {
  runId: string;
  taskQueue: string;
  namespace: string;
  /** What was asked, e.g. "the state query" or "the approval". */
  request: string;
  timeoutMs: number;
  /** An update (a decision, a tool result) stays with Temporal and may still be applied later. */
  pending: boolean;
}

/**
 * Nothing answered a request to a run because no worker polls the run's task queue. Queries and updates are
 * answered by the workflow running in a worker; Temporal holds them until one polls, so without this error
 * the call would simply wait. The message names the task queue to start a worker on.
 */
export class NoWorkerError extends DurableAgentError {
  private readonly [MARKER] = true;
  readonly runId: string;
  readonly taskQueue: string;
  readonly namespace: string;

  constructor(details: NoWorkerErrorDetails, options?: { cause?: unknown }) {
    super({
      code: 'Client.NoWorker',
      message:
        `No worker is polling task queue '${details.taskQueue}' (namespace '${details.namespace}'), so nothing ` +
        `answered ${details.request} of run '${details.runId}' within ${seconds(details.timeoutMs)}. Start a ` +
        `worker that hosts this agent on task queue '${details.taskQueue}' (e.g. TEMPORAL_TASK_QUEUE=` +
        `${details.taskQueue} npx durable-agent worker ./agents.ts) and try again.` +
        (details.pending ? pendingNote() : ''),
      cause: options?.cause,
    });
    this.name = 'NoWorkerError';
    this.runId = details.runId;
    this.taskQueue = details.taskQueue;
    this.namespace = details.namespace;
  }

  /** True for a {@link NoWorkerError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is NoWorkerError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}

/** `20 s`, `1.5 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** What happens to an update nobody answered: Temporal keeps it, so it may still take effect. */
export function pendingNote(): string {
  return (
    " Temporal keeps the request: a worker that starts later may still apply it, so check the run's state " +
    'before sending it again.'
  );
}
