import { Context } from '@temporalio/activity';
import { classifyMcpError } from '../src/mcp/classify-mcp-error.js';
import { McpServerError } from '../src/mcp/errors/mcp-server-error.js';
import { describeError } from '../src/mcp/describe-error.js';
import { listingVersion } from '../src/mcp/listing.js';
import { mcpToolOrigin, mcpToolsFromListing } from '../src/mcp/tools-from-listing.js';
import {
  MCP_LIST_ATTEMPTS,
  type McpListToolsInput,
  type McpListToolsResult,
  type McpListingRecord,
} from '../src/protocol/index.js';
import { type ActivityDependencies, requireAgent } from '../src/runtime/dependencies.js';
import { startHeartbeating } from '../src/runtime/heartbeat.js';
import { boundedListing } from '../src/runtime/mcp-runtime.js';

/**
 * The listing without tools whose input schema cannot become a parameters schema (each is logged, naming it, and
 * listed as skipped): the record holds exactly the tools the run can offer.
 */
function convertible(server: string, listing: McpListingRecord): McpListingRecord {
  const built = new Set(
    mcpToolsFromListing(server, listing.tools, unreachable).map((tool) => mcpToolOrigin(tool)?.toolName),
  );
  const rejected = listing.tools.filter((tool) => !built.has(tool.name));
  if (rejected.length === 0) return listing;
  return {
    ...listing,
    tools: listing.tools.filter((tool) => built.has(tool.name)),
    skipped: [
      ...listing.skipped,
      ...rejected.map((tool) => ({ name: tool.name, reason: 'its input schema cannot be converted' })),
    ],
  };
}

/** Tools built only to check their schemas are never called. */
const unreachable = () => Promise.reject(new Error('not callable'));

/**
 * Lists one MCP server's tools for a run, through the worker's connection pool, filtered for the run's user when
 * the agent's authorization filters on discovery. The listing (bounded, secret-free) is recorded in history: the
 * run's MCP tools come from it on every worker. A server that cannot be reached after the activity's retries is
 * reported as failed, and the run goes on without it.
 */
export function createMcpListTools(deps: ActivityDependencies) {
  return async function mcpListTools(input: McpListToolsInput): Promise<McpListToolsResult> {
    const ctx = Context.current();
    const agent = requireAgent(deps, input.agentName);
    const config = agent.mcp;
    if (!config || !config.serverNames.includes(input.server)) {
      const message = `Agent '${agent.name}' has no MCP server '${input.server}' on this worker.`;
      return { version: 1, kind: 'failed', server: input.server, reason: 'not-configured', message };
    }
    const heartbeat = startHeartbeating();
    try {
      const listing = await config.listServerTools(input.server, {
        pool: deps.mcp.pool,
        signal: ctx.cancellationSignal,
        ...(input.userId !== undefined ? { userId: input.userId } : {}),
        context: input.context,
      });
      const bounded = boundedListing({
        server: input.server,
        version: listing.version,
        tools: listing.tools,
        skipped: listing.skipped,
      });
      const usable = convertible(input.server, bounded);
      // The record's version names what this run may use (another user's filtered listing differs).
      const record: McpListingRecord = {
        ...usable,
        version: listingVersion(usable.tools),
        sourceVersion: listing.version,
      };
      deps.mcp.remember(record);
      return { version: 1, kind: 'listed', listing: record };
    } catch (error) {
      if (ctx.cancellationSignal.aborted) throw error;
      // Retries are Temporal's: a transient failure is retried; the last attempt reports the server as failed.
      const failure = classifyMcpError(error);
      if (ctx.info.attempt < MCP_LIST_ATTEMPTS && !failure.nonRetryable) throw failure;
      return {
        version: 1,
        kind: 'failed',
        server: input.server,
        reason: McpServerError.isInstance(error) ? error.reason : 'unknown',
        message: describeError(error),
      };
    } finally {
      heartbeat.stop();
    }
  };
}
