// Which run an inbox route is about, and whether this user may see it: an agent run (never another workflow) that is
// theirs, or any run for a reviewer. Every other case answers as if the run did not exist, so ids cannot be probed.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentClient } from '../client/agent-client.js';
import type { AgentRun } from '../client/agent-run.js';
import { AGENT_RUN_WORKFLOW, SEARCH_ATTRIBUTE_KEYS as KEYS, userKey } from '../protocol/index.js';
import { notFound } from './chat-turns.js';
import type { AuthenticatedUser } from './handler-options.js';

/** A run an inbox route may act on. */
export interface InboxRunAccess {
  /** The run, pinned to its first execution. */
  run: AgentRun;
  workflowId: string;
  firstRunId: string;
  /** The run's `userId`, if it has one. */
  owner: string | undefined;
  /** The run is this user's own. */
  yours: boolean;
  running: boolean;
  agent: string | undefined;
  conversationId: string | undefined;
}

/** Which run an inbox route names, and where to look for it. */
export interface RunLookup {
  workflowId: string;
  /** The run's first execution, when the page knows it (a workflow id a chat reuses names one run per turn). */
  firstRunId?: string | undefined;
  /** Only runs on this task queue (the handler's `taskQueue`). */
  taskQueue?: string | undefined;
}

/**
 * Finds the run `lookup` names for `user`: an `agentRun` workflow (on the task queue, when given) whose user is theirs,
 * or any for a `reviewer`. Without `firstRunId`, the workflow id's latest run.
 *
 * @throws HttpRefusal `Http.NotFound` for anything else (no such workflow, another type, another user's run).
 */
export async function accessRun(
  client: AgentClient,
  lookup: RunLookup,
  user: AuthenticatedUser,
  reviewer: boolean,
): Promise<InboxRunAccess> {
  const { workflowId, taskQueue } = lookup;
  const missing = () => notFound(`No run ${workflowId} of yours: check the id, or ask a reviewer.`);
  let description;
  try {
    description = await client.temporal.workflow.getHandle(workflowId).describe();
    const latestFirstRunId = description.raw.workflowExecutionInfo?.firstRunId || description.runId;
    if (lookup.firstRunId !== undefined && lookup.firstRunId !== latestFirstRunId) {
      // An earlier run of a reused workflow id (a chat's earlier turn): closed, since a later one started.
      description = await client.temporal.workflow.getHandle(workflowId, lookup.firstRunId).describe();
    }
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw missing();
    throw error;
  }
  if (description.type !== AGENT_RUN_WORKFLOW) throw missing();
  if (taskQueue !== undefined && description.taskQueue !== taskQueue) throw missing();
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId || description.runId;
  const run = client.getRun(workflowId, { firstExecutionRunId: firstRunId });
  const owner = await ownerOf(run, description);
  const published = description.typedSearchAttributes.get(KEYS.user);
  const yours = published !== undefined ? published === userKey(user.userId) : owner === user.userId;
  if (!yours && !reviewer) throw missing();
  const attributes = description.typedSearchAttributes;
  const memo = description.memo ?? {};
  return {
    run,
    workflowId,
    firstRunId,
    owner,
    yours,
    running: description.status.name === 'RUNNING',
    agent: attributes.get(KEYS.agent) ?? (typeof memo.agent === 'string' ? memo.agent : undefined),
    conversationId: attributes.get(KEYS.conversation) ?? (typeof memo.webChat === 'string' ? memo.webChat : undefined),
  };
}

/**
 * The run's user: the web handler's memo (chat turns), else what its state says it was started with (a worker
 * answers for a running run; a finished one reads its final record). Its search attribute holds only a hash.
 */
async function ownerOf(run: AgentRun, description: { memo?: unknown }): Promise<string | undefined> {
  const memo = (description.memo ?? {}) as Record<string, unknown>;
  if (typeof memo.webUser === 'string') return memo.webUser;
  try {
    return (await run.state()).claims?.userId;
  } catch {
    return undefined;
  }
}
