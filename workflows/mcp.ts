import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  MCP_LIST_ATTEMPTS,
  MCP_LIST_BUDGET_MS,
  type AgentDescription,
  type McpListToolsResult,
  type RunRef,
} from '../src/protocol/index.js';
import type { AgentRunState } from './run-state.js';

type Activities = ReturnType<typeof createActivities>;

const { mcpListTools } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: MCP_LIST_ATTEMPTS },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/**
 * Lists MCP servers' tools for the run, one activity per server, in parallel; the listings are recorded and are the
 * run's MCP tools from now on. A server that cannot be listed is an event, and the run goes on without its tools.
 * Runs whose description has no MCP servers schedule nothing here. Waits for every server: the path of runs started
 * on protocols 1–2 (`listEveryServer`), and of re-listings after `tools/list_changed`.
 */
export async function listMcpServers(
  state: AgentRunState,
  description: AgentDescription,
  run: RunRef,
  servers: string[],
): Promise<void> {
  const results = await Promise.all(servers.map((server) => listServer(state, description, run, server)));
  for (const result of results) state.recordListing(result);
}

/** One server's listing; a failure (other than cancellation) is a `failed` result. */
async function listServer(
  state: AgentRunState,
  description: AgentDescription,
  run: RunRef,
  server: string,
): Promise<McpListToolsResult> {
  try {
    const { userId, context } = state.run;
    return await mcpListTools({
      agentName: description.agentName,
      run,
      server,
      ...(userId !== undefined ? { userId } : {}),
      context,
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { version: 1 as const, kind: 'failed' as const, server, reason: 'unknown', message: rootCause(err) };
  }
}

/**
 * The run's first listing under a budget (protocol 4): every server's listing starts at
 * once and the first model call waits for them at most the budget (the agent's `listBudget`, else
 * `MCP_LIST_BUDGET_MS`). The listings that arrived are recorded in server order; a server still listing is late:
 * its listing is recorded when it arrives (`late: true` on its event), and its tools are offered from the next model
 * call on. The late listings run in their own cancellation scope: before the run ends they are cancelled, and
 * before it continues as new they get one more budget, then are cancelled; either way the workflow waits until
 * each activity has settled, so none is left running.
 */
export class BudgetedMcpListings {
  private readonly scope = new CancellationScope();
  private readonly inFlight = new Set<string>();
  private readonly budgetMs: number;

  constructor(
    private readonly state: AgentRunState,
    private readonly description: AgentDescription,
    private readonly run: RunRef,
  ) {
    this.budgetMs = description.mcp?.listBudgetMs ?? MCP_LIST_BUDGET_MS;
  }

  /** Servers whose listing has not settled yet. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Lists `servers`, returning once all are recorded or the budget is spent. */
  async list(servers: string[]): Promise<void> {
    const arrived = new Map<string, McpListToolsResult>();
    let late = false;
    for (const server of servers) {
      this.inFlight.add(server);
      void this.scope
        .run(() => listServer(this.state, this.description, this.run, server))
        .catch((err: unknown) => cancelledListing(server, err))
        .then((result) => {
          this.inFlight.delete(server);
          if (late) this.state.recordListing(result, true);
          else arrived.set(server, result);
        });
    }
    await condition(() => this.inFlight.size === 0, this.budgetMs);
    late = true;
    for (const server of servers) {
      const result = arrived.get(server);
      if (result) this.state.recordListing(result);
      else this.state.listingLate(server);
    }
  }

  /**
   * Settles the late listings: waits up to `graceMs` for them, then cancels the rest and waits for their
   * activities to acknowledge (a cancelled listing is a late `mcp-server-failed` event, reason `cancelled`).
   * Runs even when the run itself is being cancelled. Schedules nothing when no listing is late.
   */
  async settle(graceMs = 0): Promise<void> {
    if (this.inFlight.size === 0) return;
    await CancellationScope.nonCancellable(async () => {
      if (graceMs > 0) await condition(() => this.inFlight.size === 0, graceMs);
      if (this.inFlight.size === 0) return;
      this.scope.cancel();
      await condition(() => this.inFlight.size === 0);
    });
  }

  /** Before continue-as-new: one more budget for the late listings, then they are cancelled. */
  async settleBeforeContinuing(): Promise<void> {
    await this.settle(this.budgetMs);
  }
}

/** A late listing that was cancelled (or, unexpectedly, threw): the run goes on without the server. */
function cancelledListing(server: string, err: unknown): McpListToolsResult {
  const message = isCancellation(err)
    ? `MCP server '${server}' was still listing its tools when the run finished or continued as new, so its ` +
      'listing was cancelled; check why it answers so slowly (or raise the agent’s MCP listBudget).'
    : rootCause(err);
  return { version: 1, kind: 'failed', server, reason: isCancellation(err) ? 'cancelled' : 'unknown', message };
}

function rootCause(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
