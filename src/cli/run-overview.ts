// What `state` and `list` add to the raw run state: the answer and the decisions (with who made them) of a run, and
// for a listing, each run's agent and what a running run waits for. Reads are bounded: a listing collects at most
// MAX_LISTED executions and asks running runs for their state in parallel under one short deadline, so a listing
// without a worker still answers quickly.
import type { AgentClient } from '../client/agent-client.js';
import type { AgentRun } from '../client/agent-run.js';
import type { AgentRunOutput, ApprovalRecord, RunEvent, RunState } from '../protocol/index.js';
import { AGENT_RUN_WORKFLOW } from '../protocol/index.js';
import { eventsQuery, stateQuery } from '../protocol/run-messages.js';

/** A decision as `state` shows it: from the run's output once it ended, else from its events. */
export type DecisionView = Pick<
  ApprovalRecord,
  'toolName' | 'approved' | 'reason' | 'approver' | 'approverVerified' | 'timedOut'
>;

/** The answer and decisions of a run, as far as they are known. */
export interface RunOutcome {
  /** The final text of a completed run. */
  answer?: string;
  /** Why a failed run failed: the message at the bottom of its failure's cause chain. */
  failure?: string;
  decisions: DecisionView[];
}

/** Events read for a running run's decisions (the events query's own page size). */
const EVENT_PAGE = 500;

/** Reads a run's answer (when it completed) and its decisions. Needs no worker for a completed run. */
export async function runOutcome(run: AgentRun, state: RunState): Promise<RunOutcome> {
  if (state.status === 'completed') {
    const output = (await run.handle.result()) as AgentRunOutput;
    return { answer: output.text, decisions: output.approvals };
  }
  if (state.status === 'failed') {
    const failure = await run.handle.result().then(
      () => undefined,
      (error: unknown) => {
        let root = error;
        while (root instanceof Error && root.cause instanceof Error) root = root.cause;
        return root instanceof Error ? root.message : String(root);
      },
    );
    const events: RunEvent[] = await run.handle.query(eventsQuery, 0, EVENT_PAGE);
    return {
      ...(failure !== undefined ? { failure } : {}),
      decisions: events.flatMap((event) => (event.type === 'approval-decided' ? [event] : [])),
    };
  }
  const events: RunEvent[] = await run.handle.query(eventsQuery, 0, EVENT_PAGE);
  return {
    decisions: events.flatMap((event) => (event.type === 'approval-decided' ? [event] : [])),
  };
}

/** One row of `list`. */
export interface ListedRun {
  workflowId: string;
  startTime: Date;
  /** The agent, from the run's memo (set by `start`), else from a default workflow id `agent-<name>-<uuid>`. */
  agent?: string;
  /** `completed`, `failed`, …; for a running run what it waits for, when a worker said so in time. */
  status: string;
}

/** How many executions `list` reads at most, to sort them newest first. */
export const MAX_LISTED = 1_000;

const DEFAULT_ID = /^agent-(.+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The newest `limit` runs matching `query`, newest first. Running runs are asked what they wait for, all at once,
 * for at most `stateTimeoutMs`; one that does not answer in time is shown as `running`.
 */
export async function listRuns(
  client: AgentClient,
  options: { query?: string; limit: number; stateTimeoutMs: number },
): Promise<ListedRun[]> {
  const filter = `WorkflowType = '${AGENT_RUN_WORKFLOW}'${options.query ? ` AND (${options.query})` : ''}`;
  const rows: ListedRun[] = [];
  for await (const execution of client.temporal.workflow.list({ query: filter })) {
    const memoAgent = execution.memo?.agent;
    const agent = typeof memoAgent === 'string' ? memoAgent : DEFAULT_ID.exec(execution.workflowId)?.[1];
    rows.push({
      workflowId: execution.workflowId,
      startTime: execution.startTime,
      ...(agent !== undefined ? { agent } : {}),
      status: execution.status.name.toLowerCase().replace(/_/g, ' '),
    });
    if (rows.length >= MAX_LISTED) break;
  }
  // Visibility does not promise an order: newest first is what a person looks for.
  rows.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  const newest = rows.slice(0, options.limit);
  const deadline = Date.now() + options.stateTimeoutMs;
  await Promise.all(
    newest
      .filter((row) => row.status === 'running')
      .map(async (row) => {
        try {
          const state = await client.temporal.connection.withDeadline(deadline, () =>
            client.getRun(row.workflowId).handle.query(stateQuery),
          );
          row.status = waitingFor(state);
        } catch {
          // No worker answered in time: what Temporal says (running) is all we know.
        }
      }),
  );
  return newest;
}

/** What a running run waits for, in words. */
export function waitingFor(state: RunState): string {
  if (state.pendingApprovals.length > 0) return 'waiting for approval';
  if (state.pendingElicitations.length > 0) return 'waiting for answer';
  if (state.pendingToolResults.length > 0) return 'waiting for tool result';
  return state.status === 'waiting' ? 'waiting' : 'running';
}
