import type { AgentDescription, RunRef } from '../../src/protocol/index.js';
import { listMcpServers } from '../mcp.js';
import type { AgentRunState } from '../run-state.js';

/**
 * Protocols 1–2 (v0.1.0–v0.3.0): the run's first listing waits for every MCP server before the first model call
 * (protocol 4 waits at most the listing budget: `BudgetedMcpListings`). Retired with protocol 2.
 */
export async function listEveryServer(
  state: AgentRunState,
  description: AgentDescription,
  run: RunRef,
  servers: string[],
): Promise<void> {
  await listMcpServers(state, description, run, servers);
}
