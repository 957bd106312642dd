// A conversation as the inbox shows it: the runs of its turns, found through visibility by the conversation id they
// publish (`DurableAgentConversation`), oldest first. A chat of the web handler keeps one workflow id for all its
// turns (each turn a new run of it); a conversation workflow gives each turn its own id: both list the same way.
import type { AgentClient } from '../client/agent-client.js';
import { AGENT_RUN_WORKFLOW, SEARCH_ATTRIBUTE_KEYS as KEYS, WAITING_KINDS, userKey } from '../protocol/index.js';
import type { WaitingKind } from '../protocol/index.js';
import { queryString } from './inbox-listing.js';
import type { RunOpenings } from './run-opening.js';

/** One turn (run) of a conversation. */
export interface ConversationRun {
  workflowId: string;
  /** The run's first execution: with the workflow id, it names this turn when the id is reused by the next. */
  firstRunId: string;
  agent?: string;
  status: string;
  startTime: string;
  waiting: WaitingKind[];
  /** What the user asked in this turn (its message, bounded), read from the run's history. */
  asked?: string;
}

/** What `GET …/inbox/conversations/:id` answers. */
export interface ConversationListing {
  conversationId: string;
  /** Oldest first; the newest `MAX_TURNS` when there are more (`truncated`). */
  runs: ConversationRun[];
  truncated: boolean;
}

/** Turns one listing shows at most (the newest). */
const MAX_TURNS = 100;

/**
 * The runs of conversation `conversationId` (the user's own only, unless `everyone`). An id that cannot be put into a
 * visibility query (a backslash or a control character) has no runs to list.
 */
export async function listConversation(
  client: AgentClient,
  conversationId: string,
  scope: {
    userId: string;
    everyone: boolean;
    taskQueue?: string | undefined;
    /** Another id listed with it: the user's chat of that id, whose conversation id holds the user. */
    alias?: string;
  },
  /** Where the turns' messages are read (cached per run); absent: the listing has none. */
  openings?: RunOpenings,
): Promise<ConversationListing> {
  let ids: string;
  try {
    ids = [conversationId, ...(scope.alias !== undefined ? [scope.alias] : [])].map(queryString).join(', ');
  } catch {
    return { conversationId, runs: [], truncated: false };
  }
  const clauses = [`WorkflowType = '${AGENT_RUN_WORKFLOW}'`, `${KEYS.conversation.name} IN (${ids})`];
  if (!scope.everyone) clauses.push(`${KEYS.user.name} = '${userKey(scope.userId)}'`);
  if (scope.taskQueue !== undefined) clauses.push(`TaskQueue = ${queryString(scope.taskQueue)}`);
  const runs: ConversationRun[] = [];
  let truncated = false;
  // Visibility lists the newest first: the first page holds the turns a person looks at.
  for await (const execution of client.temporal.workflow.list({ query: clauses.join(' AND '), pageSize: MAX_TURNS })) {
    if (runs.length === MAX_TURNS) {
      truncated = true;
      break;
    }
    // A run continued as new is listed once per execution: the chain is one turn, shown by its newest execution.
    const firstRunId = execution.raw.firstRunId || execution.runId;
    if (runs.some((run) => run.firstRunId === firstRunId)) continue;
    const agent = execution.typedSearchAttributes.get(KEYS.agent);
    runs.push({
      workflowId: execution.workflowId,
      firstRunId,
      ...(agent !== undefined ? { agent } : {}),
      status: execution.status.name,
      startTime: execution.startTime.toISOString(),
      waiting: (execution.typedSearchAttributes.get(KEYS.waiting) ?? []).filter((kind): kind is WaitingKind =>
        (WAITING_KINDS as readonly string[]).includes(kind),
      ),
    });
  }
  runs.sort((a, b) => a.startTime.localeCompare(b.startTime));
  if (openings) {
    // One turn's history page each, the first time a turn is listed (cached after).
    for (const run of runs) {
      const { asked } = await openings.of(run.workflowId, run.firstRunId);
      if (asked !== undefined) run.asked = asked;
    }
  }
  return { conversationId, runs, truncated };
}
