import { DurableAgentError } from '../../errors/durable-agent-error.js';
import { pendingNote, seconds } from './no-worker-error.js';

const MARKER = Symbol.for('durable-agent.error.WorkerTimeoutError');

/** What {@link WorkerTimeoutError} knows about the unanswered request. */
export interface WorkerTimeoutErrorDetails {
  runId: string;
  taskQueue: string;
  request: string;
  timeoutMs: number;
  /** Identities of the workers polling the run's task queue, and how long ago each polled. */
  pollers: Array<{ identity: string; lastPollAgoMs?: number }>;
  pending: boolean;
}

/**
 * Workers poll the run's task queue, but none answered a request to the run in time: a worker that is busy
 * (every workflow slot taken), stuck, or just restarted (after a crash the run's next task waits out the dead
 * worker's sticky queue first), or one that does not host this workflow.
 */
export class WorkerTimeoutError extends DurableAgentError {
  private readonly [MARKER] = true;
  readonly runId: string;
  readonly taskQueue: string;
  readonly pollers: ReadonlyArray<{ identity: string; lastPollAgoMs?: number }>;

  constructor(details: WorkerTimeoutErrorDetails, options?: { cause?: unknown }) {
    const shown = details.pollers.slice(0, 3).map(({ identity, lastPollAgoMs }) => {
      return lastPollAgoMs === undefined ? identity : `${identity}, last polled ${seconds(lastPollAgoMs)} ago`;
    });
    const more = details.pollers.length > shown.length ? `, and ${details.pollers.length - shown.length} more` : '';
    super({
      code: 'Client.WorkerTimeout',
      message:
        `No answer to ${details.request} of run '${details.runId}' within ${seconds(details.timeoutMs)}, although ` +
        `${details.pollers.length} worker${details.pollers.length === 1 ? '' : 's'} poll${details.pollers.length === 1 ? 's' : ''} ` +
        `task queue '${details.taskQueue}' (${shown.join('; ')}${more}). A worker may be busy, stuck or just ` +
        'restarted (after a worker crash the first answer can take ~10 s): try again, give it longer ' +
        "(requestTimeoutMs), or check the workers' logs." +
        (details.pending ? pendingNote() : ''),
      cause: options?.cause,
    });
    this.name = 'WorkerTimeoutError';
    this.runId = details.runId;
    this.taskQueue = details.taskQueue;
    this.pollers = details.pollers;
  }

  /** True for a {@link WorkerTimeoutError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is WorkerTimeoutError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
