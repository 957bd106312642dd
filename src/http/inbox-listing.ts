// What waits for people: the runs a visibility query finds by their search attributes (no scan of every run), and
// the requests each one holds, read from its state. Bounded: one page of runs, states read a few at a time, each
// with a deadline, so one run whose worker is gone shows as unavailable instead of holding the listing.
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
  /** False when no worker answered for its state in time: its requests are not listed. */
  available: boolean;
}

/** One request a person can answer, with what they need to decide and the token that binds the answer to it. */
export type InboxItem = InboxItemBase &
  (
    | { kind: 'approval'; toolName: string; args: JsonValue; token?: string; expiresAt?: string }
    | {
        kind: 'elicitation';
        toolName: string;
        serverName: string;
        message: string;
        requestedSchema: JsonValue;
        token?: string;
        expiresAt?: string;
      }
    | { kind: 'client-tool'; toolName: string; args: JsonValue }
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
}

/** Runs whose states are read at once. */
const STATE_CONCURRENCY = 8;

/**
 * Lists the runs waiting for people (of `scope.userId` only, unless `scope.everyone`: a reviewer's listing) and their
 * requests.
 */
export async function listInbox(
  client: AgentClient,
  scope: { userId: string; everyone: boolean; taskQueue?: string | undefined },
  limits: { maxRuns: number; stateTimeoutMs: number },
): Promise<InboxListing> {
  const executions: WorkflowExecutionInfo[] = [];
  let truncated = false;
  const query = waitingQuery(scope);
  for await (const execution of client.temporal.workflow.list({ query, pageSize: limits.maxRuns })) {
    if (executions.length === limits.maxRuns) {
      truncated = true;
      break;
    }
    executions.push(execution);
  }
  const states = await mapBounded(executions, STATE_CONCURRENCY, (execution) =>
    stateOf(client, execution, limits.stateTimeoutMs),
  );
  const runs = executions.map((execution, i) => inboxRun(execution, scope.userId, states[i]));
  const items = executions
    .flatMap((execution, i) => (states[i] ? itemsOf(execution.workflowId, states[i]) : []))
    .sort((a, b) => (a.requestedAt ?? '').localeCompare(b.requestedAt ?? ''));
  return { user: scope.userId, reviewer: scope.everyone, runs, items, truncated };
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

/** The run's state, or undefined when no worker answered within `timeoutMs`. */
async function stateOf(
  client: AgentClient,
  execution: WorkflowExecutionInfo,
  timeoutMs: number,
): Promise<RunState | undefined> {
  const run = client.getRun(execution.workflowId, { firstExecutionRunId: execution.raw.firstRunId || execution.runId });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([run.state().catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
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
