// Requests that only a worker can answer (queries, updates), with a deadline and an error that says why nobody
// answered. Without a worker Temporal holds an update indefinitely and a query for 30 s, then fails it with
// "query timed out before a worker could process it"; neither tells a person which worker to start.
import type { WorkflowHandle } from '@temporalio/client';
import { NoWorkerError } from './errors/no-worker-error.js';
import { WorkerTimeoutError } from './errors/worker-timeout-error.js';

/** Default time a worker gets to answer: above the ~10 s a run's first task can wait after a worker crash. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;

/** Options of {@link throughWorker}. */
export interface WorkerRequestOptions {
  /** What is asked, for the message: "the state query", "the approval". */
  request: string;
  timeoutMs: number;
  /** Aborting it cancels the request; the abort error is passed through as is. */
  signal?: AbortSignal;
  /** An update: Temporal keeps it after the deadline, and the message says so. */
  pending?: boolean;
}

const GRPC_CANCELLED = 1;
const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_FAILED_PRECONDITION = 9;
const TASK_QUEUE_TYPE_WORKFLOW = 1;
/** Bounds the calls that explain a timeout, so the explanation cannot hang in its turn. */
const EXPLAIN_TIMEOUT_MS = 5_000;
/**
 * Temporal lists a poller for minutes after its last poll, but a live worker polls again at least every ~70 s
 * (a long poll lasts up to a minute): one not seen for longer has stopped.
 */
const STALE_POLLER_MS = 90_000;

/**
 * Runs `request` (a query or update on `handle`) with a deadline.
 *
 * @throws NoWorkerError when the deadline passed and no worker polls the run's task queue.
 * @throws WorkerTimeoutError when the deadline passed although workers poll it.
 */
export async function throughWorker<T>(
  handle: WorkflowHandle,
  request: () => Promise<T>,
  options: WorkerRequestOptions,
): Promise<T> {
  const connection = handle.client.connection;
  const deadline = Date.now() + options.timeoutMs;
  const withDeadline = () => connection.withDeadline(deadline, request);
  const { signal } = options;
  // The Temporal client adds an abort listener per call and never removes it: give it a signal of its own that
  // lives as long as this request, so a caller's long-lived signal (a watch polling for hours) collects none.
  const local = signal ? new AbortController() : undefined;
  const forward = () => local?.abort(signal?.reason);
  signal?.addEventListener('abort', forward, { once: true });
  try {
    if (signal?.aborted) forward();
    return await (local ? connection.withAbortSignal(local.signal, withDeadline) : withDeadline());
  } catch (error) {
    if (signal?.aborted) throw error;
    // Temporal itself may say nobody polls (a second before the deadline): no need to ask it again.
    if (isNoPollerAnswer(error)) throw await unanswered(handle, options, error, { noPoller: true });
    if (isWorkerTimeout(error) || Date.now() >= deadline) throw await unanswered(handle, options, error);
    throw error;
  } finally {
    signal?.removeEventListener('abort', forward);
  }
}

/** A request that ended because nobody answered in time (our deadline, or the server's own query timeout). */
export function isWorkerTimeout(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === GRPC_DEADLINE_EXCEEDED || code === GRPC_CANCELLED) return true;
    if ((current as { name?: unknown }).name === 'WorkflowUpdateRPCTimeoutOrCancelledError') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Temporal's own "no poller seen for task queue recently, worker may be down" (gRPC FAILED_PRECONDITION): the server
 * answers a query so, a second before the caller's deadline, when no worker has polled the queue lately.
 */
export function isNoPollerAnswer(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const { code, details, message } = current as { code?: unknown; details?: unknown; message?: unknown };
    const text = `${typeof details === 'string' ? details : ''} ${typeof message === 'string' ? message : ''}`;
    if (code === GRPC_FAILED_PRECONDITION && /no poller/i.test(text)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Tells "no worker" from "a worker that did not answer" by the pollers Temporal lists for the run's queue.
 * `noPoller`: Temporal already said nobody polls, though it may still list a worker that stopped moments ago.
 */
async function unanswered(
  handle: WorkflowHandle,
  options: WorkerRequestOptions,
  cause: unknown,
  { noPoller = false }: { noPoller?: boolean } = {},
): Promise<Error> {
  const connection = handle.client.connection;
  const namespace = handle.client.options.namespace;
  let taskQueue: string;
  let pollers: Array<{ identity: string; lastPollAgoMs?: number }>;
  try {
    ({ taskQueue, pollers } = await connection.withDeadline(Date.now() + EXPLAIN_TIMEOUT_MS, async () => {
      const { taskQueue } = await handle.describe();
      const response = await handle.client.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
      });
      const now = Date.now();
      const listed = response.pollers.map((poller) => {
        const seconds = poller.lastAccessTime?.seconds;
        const at = seconds == null ? undefined : Number(seconds) * 1000 + (poller.lastAccessTime?.nanos ?? 0) / 1e6;
        return { identity: poller.identity ?? 'unknown', ...(at === undefined ? {} : { lastPollAgoMs: now - at }) };
      });
      return {
        taskQueue,
        pollers: listed.filter((p) => p.lastPollAgoMs === undefined || p.lastPollAgoMs < STALE_POLLER_MS),
      };
    }));
  } catch {
    // The server cannot even describe the run: the original failure is the better message.
    return cause instanceof Error ? cause : new Error(String(cause));
  }
  const common = { runId: handle.workflowId, taskQueue, request: options.request, timeoutMs: options.timeoutMs };
  const pending = options.pending === true;
  if (noPoller || pollers.length === 0) return new NoWorkerError({ ...common, namespace, pending }, { cause });
  return new WorkerTimeoutError({ ...common, pollers, pending }, { cause });
}
