import { ActivityCancellationType, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { MCP_LIST_ATTEMPTS, type AgentDescription, type RunRef } from '../src/protocol/index.js';
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
 * Runs whose description has no MCP servers schedule nothing here.
 */
export async function listMcpServers(
  state: AgentRunState,
  description: AgentDescription,
  run: RunRef,
  servers: string[],
): Promise<void> {
  const results = await Promise.all(
    servers.map(async (server) => {
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
    }),
  );
  for (const result of results) state.recordListing(result);
}

function rootCause(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
