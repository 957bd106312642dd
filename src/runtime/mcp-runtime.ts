import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { LRUCache } from 'lru-cache';
import type { Agent } from '../agent/agent.js';
import { getGlobalLogger } from '../logger.js';
import type { MCPConfiguration } from '../mcp/configuration.js';
import { McpConnectionPool, type McpConnectionPoolOptions } from '../mcp/connection-pool.js';
import { mcpToolsFromListing } from '../mcp/tools-from-listing.js';
import { withoutCollisions } from '../mcp/tool-names.js';
import { jsonBytes, type McpListingRecord, type McpListingRef, type RunRef } from '../protocol/index.js';
import { mergeRunTools } from '../agent/run-tools.js';
import { ToolManager } from '../tool/tool-manager.js';
import type { AnyTool, ToolExecuteOptions } from '../tool/tool.js';
import { mcpListingQuery } from '../protocol/run-messages.js';

/** Largest recorded listing per server: over it, tools are left out (and said so) so the record fits history. */
export const MAX_LISTING_BYTES = 512 * 1024;

/**
 * The worker's MCP state, shared by every run: the connection pool (closed on shutdown), recorded listings by
 * server and version, and the tools built from them. A run's MCP tools come from the listings the run recorded,
 * never from a live listing, so every worker offers the run the same MCP tools; a worker that lacks a listing reads
 * it from the run.
 */
export class McpRuntime {
  readonly pool: McpConnectionPool;
  private readonly listings = new LRUCache<string, McpListingRecord>({ max: 512 });
  /** Tools built from a listing for an agent (schema conversion is done once, then shared by runs). */
  private readonly tools = new LRUCache<string, AnyTool[]>({ max: 512 });

  constructor(poolOptions: McpConnectionPoolOptions = {}) {
    this.pool = new McpConnectionPool(poolOptions);
  }

  /** Remembers a listing this worker recorded for a run (the next model call on this worker needs no query). */
  remember(listing: McpListingRecord): void {
    this.listings.set(key(listing), listing);
  }

  /** A recorded listing: from this worker, else from the run that recorded it. */
  async listing(run: RunRef, ref: McpListingRef): Promise<McpListingRecord> {
    const cached = this.listings.get(key(ref));
    if (cached) return cached;
    const handle = Context.current().client.workflow.getHandle(run.workflowId, run.runId);
    const listing = await handle.query(mcpListingQuery, ref.server, ref.version);
    if (!listing) {
      throw ApplicationFailure.create({
        type: 'Mcp.ListingUnavailable',
        message: `Run ${run.workflowId} has no recorded listing of MCP server '${ref.server}' version ${ref.version}.`,
      });
    }
    this.listings.set(key(ref), listing);
    return listing;
  }

  /**
   * The run's tools: the agent's own (as resolved for the run) plus the MCP tools of the recorded listings. An MCP
   * tool whose name an agent tool already has is left out (the agent's own tool wins), with a warning.
   */
  async runTools(agent: Agent, run: RunRef, own: ToolManager, refs: McpListingRef[] | undefined): Promise<ToolManager> {
    if (!refs?.length || !agent.mcp) return own;
    let mcpTools: AnyTool[] = [];
    for (const ref of refs) mcpTools.push(...this.toolsOf(agent, agent.mcp, await this.listing(run, ref)));
    // Tools of two servers offered under one name are both left out (logged), never one taking the other's calls.
    mcpTools = withoutCollisions(mcpTools).tools;
    const names = new Set(own.getAllToolNames());
    const clashing = mcpTools.filter((tool) => names.has(tool.name)).map((tool) => tool.name);
    if (clashing.length > 0) {
      getGlobalLogger().warn(`MCP tools hidden by the agent's own tools of the same name: ${clashing.join(', ')}`);
    }
    const ownItems = [...own.getStandaloneTools(), ...own.getToolkits()];
    return mergeRunTools(new ToolManager(mcpTools.filter((tool) => !names.has(tool.name))), ownItems);
  }

  /**
   * Servers whose recorded listing this worker knows to be out of date (a `tools/list_changed` arrived, or it has
   * listed the server since with another result): the run re-lists them before its next model call.
   */
  async staleServers(agent: Agent, run: RunRef, refs: McpListingRef[] | undefined): Promise<string[]> {
    const config = agent.mcp;
    if (!config || !refs?.length) return [];
    const stale: string[] = [];
    for (const ref of refs) {
      const listing = await this.listing(run, ref);
      if (config.isListingStale(ref.server, listing.sourceVersion ?? listing.version, { pool: this.pool })) {
        stale.push(ref.server);
      }
    }
    return stale;
  }

  /** Closes every pooled connection (worker shutdown). */
  async close(): Promise<void> {
    await this.pool.close();
  }

  private toolsOf(agent: Agent, config: MCPConfiguration, listing: McpListingRecord): AnyTool[] {
    const cacheKey = `${agent.name}/${key(listing)}`;
    let tools = this.tools.get(cacheKey);
    if (!tools) {
      tools = mcpToolsFromListing(listing.server, listing.tools, (definition, args, options) =>
        this.call(config, listing.server, definition.name, definition.annotations, args, options),
      );
      this.tools.set(cacheKey, tools);
    }
    return tools;
  }

  private call(
    config: MCPConfiguration,
    server: string,
    toolName: string,
    annotations: { readOnlyHint?: boolean; idempotentHint?: boolean } | undefined,
    args: Record<string, unknown>,
    options: ToolExecuteOptions,
  ) {
    // The activity's hooks for this call (timeout, elicitation, progress) come with the call's options.
    const hooks = options.mcpCall;
    return config.callServerTool(server, toolName, args, {
      pool: this.pool,
      signal: options.abortSignal,
      userId: options.userId,
      context: options.context,
      idempotent: annotations?.readOnlyHint === true || annotations?.idempotentHint === true,
      ...(hooks
        ? { timeoutMs: hooks.timeoutMs, onElicitation: hooks.onElicitation, onProgress: hooks.onProgress }
        : {}),
    });
  }
}

/** A listing bounded for the record: tools past `MAX_LISTING_BYTES` are left out, with the reason. */
export function boundedListing(listing: McpListingRecord): McpListingRecord {
  if (jsonBytes(listing) <= MAX_LISTING_BYTES) return listing;
  const tools = [];
  const skipped = [...listing.skipped];
  let bytes = jsonBytes({ ...listing, tools: [] });
  for (const tool of listing.tools) {
    const size = jsonBytes(tool) + 1;
    if (bytes + size > MAX_LISTING_BYTES) {
      skipped.push({ name: tool.name, reason: `the listing is over ${MAX_LISTING_BYTES} bytes` });
      continue;
    }
    bytes += size;
    tools.push(tool);
  }
  return { ...listing, tools, skipped };
}

function key(ref: McpListingRef): string {
  return `${ref.server}@${ref.version}`;
}
