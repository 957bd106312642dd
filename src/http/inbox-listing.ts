// What waits for people: the runs a visibility query finds by their search attributes (no scan of every run), and
// the requests each one holds, read from its state. Bounded: one page of runs, states read a few at a time, each
// query cancelled at its deadline, so one run whose worker is gone shows as unavailable instead of holding the
// listing; once no worker of a task queue answered, its other runs are not asked (workers are down: asking every run
// again on each refresh only piles up queries Temporal holds for nobody).
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { AgentClient } from '../client/agent-client.js';
import {
  AGENT_RUN_WORKFLOW,
  SEARCH_ATTRIBUTE_KEYS as KEYS,
  WAITING_KINDS,
  userKey,
  type JsonValue,
  type RunState,
  type WaitingKind,
} from '../protocol/index.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal } from './http-refusal.js';
import type { RunOpenings } from './run-opening.js';

/** A waiting run as the inbox lists it. */
export interface InboxRun {
  workflowId: string;
  /** The run id of the run's first execution: with the workflow id, it names this run and no later one. */
  firstRunId: string;
  agent?: string;
  /** The run's `userId` (what its starter stated), as its state says (absent when it is not `available`). */
  userId?: string;
  conversationId?: string;
  /** What it waits for, as its search attributes say. */
  waiting: WaitingKind[];
  /** Since when it waits for people (ISO). */
  since?: string;
  /** The run is the user's own (its `userId` is theirs). */
  yours: boolean;
  /** False when no worker answered for its state in time (or its task queue's workers are down): no requests listed. */
  available: boolean;
  /** What the user asked (the run's message, at most `MAX_ASKED_CHARS` characters), read from its history. */
  asked?: string;
  /**
   * Whether people other than the run's user may decide its approvals and answer its questions: its agent has an
   * `authorizeDecision` hook (which still checks each one). Absent when the run's history does not say yet.
   */
  othersMayDecide?: boolean;
}

/** One request a person can answer, with what they need to decide and the token that binds the answer to it. */
export type InboxItem = InboxItemBase &
  (
    | { kind: 'approval'; toolName: string; args: JsonValue; step: number; token?: string; expiresAt?: string }
    | {
        kind: 'elicitation';
        toolName: string;
        serverName: string;
        message: string;
        requestedSchema: JsonValue;
        token?: string;
        expiresAt?: string;
      }
    | { kind: 'client-tool'; toolName: string; args: JsonValue; step: number }
  );

interface InboxItemBase {
  /** The tool call's id (approval, client-side tool) or the question's id (elicitation). */
  id: string;
  workflowId: string;
  /** When the run asked (ISO); a client-side tool of an older worker has none. */
  requestedAt?: string;
}

/** What `GET …/inbox` answers. */
export interface InboxListing {
  /** Who asks (the authenticated user). */
  user: string;
  /** They review everyone's runs (the listing holds every waiting run). */
  reviewer: boolean;
  runs: InboxRun[];
  /** Every pending request of the available runs, the longest waiting first. */
  items: InboxItem[];
  /** More runs wait than the listing read (`maxRuns`). */
  truncated: boolean;
  /**
   * Task queues whose workers are down: none answered for a run's state in time, and their other runs were not asked.
   * A page backs off while this is not empty.
   */
  workersDown: string[];
}

/** Runs whose states are read at once. */
const STATE_CONCURRENCY = 8;
/** How long one listing may take in all (the visibility call and every state read), ms. */
export const LISTING_TIMEOUT_MS = 20_000;

/**
 * Lists the runs waiting for people (of `scope.userId` only, unless `scope.everyone`: a reviewer's listing) and their
 * requests.
 */
export async function listInbox(
  client: AgentClient,
  scope: { userId: string; everyone: boolean; taskQueue?: string | undefined },
  limits: { maxRuns: number; stateTimeoutMs: number },
  /** `signal` cancels every call of the listing (the request's signal, with the listing's deadline). */
  context: { openings: RunOpenings; signal: AbortSignal },
): Promise<InboxListing> {
  const { signal } = context;
  const executions: WorkflowExecutionInfo[] = [];
  let truncated = false;
  const query = waitingQuery(scope);
  try {
    await client.temporal.withAbortSignal(signal, async () => {
      for await (const execution of client.temporal.workflow.list({ query, pageSize: limits.maxRuns })) {
        if (executions.length === limits.maxRuns) {
          truncated = true;
          break;
        }
        executions.push(execution);
      }
    });
  } catch (error) {
    if (!signal.aborted) throw error;
    throw new HttpRefusal(
      503,
      RefusalCode.HttpUnavailable,
      'Temporal did not list the waiting runs in time: try again.',
    );
  }
  const queues = new Map<string, { answered: number; unanswered: number }>();
  const down = (queue: string) => {
    const seen = queues.get(queue);
    // A live worker answers in well under the deadline: the first query to go unanswered before any answered says
    // nobody polls (the others already asked still finish or time out).
    return seen !== undefined && seen.answered === 0 && seen.unanswered > 0;
  };
  const states = await mapBounded(executions, STATE_CONCURRENCY, async (execution) => {
    if (down(execution.taskQueue) || signal.aborted) return undefined;
    const state = await stateOf(client, execution, limits.stateTimeoutMs, signal);
    const seen = queues.get(execution.taskQueue) ?? { answered: 0, unanswered: 0 };
    if (state) seen.answered++;
    else seen.unanswered++;
    queues.set(execution.taskQueue, seen);
    return state;
  });
  // What was asked is in the runs' histories: read with no worker, once per run (cached).
  const openings = await mapBounded(executions, STATE_CONCURRENCY, (execution) =>
    client.temporal.withAbortSignal(signal, () =>
      context.openings.of(execution.workflowId, execution.raw.firstRunId || execution.runId),
    ),
  );
  const runs = executions.map((execution, i) => ({
    ...inboxRun(execution, scope.userId, states[i]),
    ...openings[i],
  }));
  const items = executions
    .flatMap((execution, i) => (states[i] ? itemsOf(execution.workflowId, states[i]) : []))
    .sort((a, b) => (a.requestedAt ?? '').localeCompare(b.requestedAt ?? ''));
  const workersDown = [...queues].filter(([, seen]) => seen.answered === 0).map(([queue]) => queue);
  return { user: scope.userId, reviewer: scope.everyone, runs, items, truncated, workersDown };
}

/**
 * The visibility query for running agent runs that wait for people (of one user: the attribute holds the hex
 * {@link userKey} of their id, so no user-given text is ever spliced into the query).
 */
function waitingQuery(scope: { userId: string; everyone: boolean; taskQueue?: string | undefined }): string {
  const kinds = WAITING_KINDS.map((kind) => `'${kind}'`).join(', ');
  const clauses = [
    `WorkflowType = '${AGENT_RUN_WORKFLOW}'`,
    `ExecutionStatus = 'Running'`,
    `${KEYS.waiting.name} IN (${kinds})`,
  ];
  if (!scope.everyone) clauses.push(`${KEYS.user.name} = '${userKey(scope.userId)}'`);
  if (scope.taskQueue !== undefined) clauses.push(`TaskQueue = ${queryString(scope.taskQueue)}`);
  return clauses.join(' AND ');
}

/**
 * A string literal of Temporal's visibility query language (quotes doubled). A backslash may start an escape there,
 * so a value holding one, or a control character, is refused (`createInboxHandler` checks its task queue with it).
 */
export function queryString(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f]/.test(value)) {
    throw new TypeError(
      `'${value}' cannot be put into a visibility query: it holds a backslash or a control character.`,
    );
  }
  return `'${value.replace(/'/g, "''")}'`;
}

/** A listed run; its user id comes from its state (the attribute holds only a hash of it). */
function inboxRun(execution: WorkflowExecutionInfo, userId: string, state: RunState | undefined): InboxRun {
  const attributes = execution.typedSearchAttributes;
  const user = state?.claims?.userId;
  const available = state !== undefined;
  const agent = attributes.get(KEYS.agent);
  const conversationId = attributes.get(KEYS.conversation);
  const since = attributes.get(KEYS.waitingSince);
  return {
    workflowId: execution.workflowId,
    firstRunId: execution.raw.firstRunId || execution.runId,
    ...(agent !== undefined ? { agent } : {}),
    ...(user !== undefined ? { userId: user } : {}),
    ...(conversationId !== undefined ? { conversationId } : {}),
    waiting: (attributes.get(KEYS.waiting) ?? []).filter((kind): kind is WaitingKind =>
      (WAITING_KINDS as readonly string[]).includes(kind),
    ),
    ...(since !== undefined ? { since: since.toISOString() } : {}),
    yours: attributes.get(KEYS.user) === userKey(userId),
    available,
  };
}

/**
 * The run's state, or undefined when no worker answered within `timeoutMs`: the query is cancelled then (and when
 * `signal` aborts), so Temporal does not hold it for a worker that is not there.
 */
async function stateOf(
  client: AgentClient,
  execution: WorkflowExecutionInfo,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<RunState | undefined> {
  const run = client.getRun(execution.workflowId, { firstExecutionRunId: execution.raw.firstRunId || execution.runId });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const stop = () => deadline.abort();
  signal.addEventListener('abort', stop, { once: true });
  const cancelled = new Promise<undefined>((resolve) =>
    deadline.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
  );
  try {
    const state = client.temporal.withAbortSignal(deadline.signal, () => run.state());
    return await Promise.race([state.catch(() => undefined), cancelled]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
    // Whatever is still in flight for this run (the query, a call explaining its timeout) ends here.
    deadline.abort();
  }
}

/** The requests of one run's state. */
export function itemsOf(workflowId: string, state: RunState): InboxItem[] {
  const approvals = state.pendingApprovals.map(
    (p): InboxItem => ({
      kind: 'approval',
      id: p.toolCallId,
      workflowId,
      toolName: p.toolName,
      args: p.args,
      step: p.step,
      requestedAt: p.requestedAt,
      ...(p.token !== undefined ? { token: p.token } : {}),
      ...(p.expiresAt !== undefined ? { expiresAt: p.expiresAt } : {}),
    }),
  );
  const questions = state.pendingElicitations.map(
    (q): InboxItem => ({
      kind: 'elicitation',
      id: q.id,
      workflowId,
      toolName: q.toolName,
      serverName: q.serverName,
      message: q.message,
      requestedSchema: q.requestedSchema as JsonValue,
      requestedAt: q.requestedAt,
      ...(q.token !== undefined ? { token: q.token } : {}),
      ...(q.expiresAt !== undefined ? { expiresAt: q.expiresAt } : {}),
    }),
  );
  const tools = state.pendingToolResults.map(
    (t): InboxItem => ({
      kind: 'client-tool',
      id: t.toolCallId,
      workflowId,
      toolName: t.toolName,
      args: t.args,
      step: t.step,
      ...(t.requestedAt !== undefined ? { requestedAt: t.requestedAt } : {}),
    }),
  );
  return [...approvals, ...questions, ...tools];
}

/** `fn` over `items`, at most `limit` at a time, results in order. */
async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
