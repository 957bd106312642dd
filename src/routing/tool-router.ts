import type { EmbeddingPlan } from '../protocol/routing.js';
import type { AgentRef, AgentToolHooks } from '../tool/agent-hooks.js';
import type { RegisteredTool } from '../tool/normalize-tool.js';
import { isUserDefinedTool, Tool, type AnyTool, type ToolExecuteOptions } from '../tool/tool.js';
import { ToolManager } from '../tool/tool-manager.js';
import {
  CALL_TOOL_DESCRIPTION,
  callToolParameters,
  SEARCH_TOOLS_DESCRIPTION,
  searchToolsParameters,
} from './builtin-tools.js';
import { checkCallTool, type CallToolCheck } from './call-tool-check.js';
import { searchCandidates } from './candidates.js';
import { CALL_TOOL_NAME, MAX_TOOL_SEARCH_QUERY_LENGTH, ROUTING_TOOL_NAMES, SEARCH_TOOLS_NAME } from './constants.js';
import { CallToolRefusedError } from './errors/call-tool-refused-error.js';
import { runRoutedTarget, type ToolApprovalHandler } from './run-routed-target.js';
import { buildToolSearchResult, searchedToolNames } from './search-result.js';
import type { EmbeddingWarmup } from './strategies/embedding-strategy.js';
import { ToolSearchService, type ResolvedSearchStrategy } from './tool-search-service.js';
import { effectiveTopK } from './top-k.js';
import type {
  ToolRanking,
  ToolRoutingConfig,
  ToolSearchCandidate,
  ToolSearchContext,
  ToolSearchResult,
} from './types.js';
import { validateToolRoutingConfig } from './validate-config.js';

export type { ToolApprovalHandler, ToolApprovalRequest } from './run-routed-target.js';

/** Options of {@link createToolRouter}. */
export interface ToolRouterOptions {
  /** The registered tools (an agent's `getToolManager()`, or a run's): the pool when the config has none. */
  tools: ToolManager | (() => ToolManager);
  /** The routing configuration (validated here too). */
  config?: ToolRoutingConfig;
  /** The worker's search service (strategies and embedding cache); default: a new one for this router. */
  service?: ToolSearchService;
  /** In-process `callTool` only: the agent its hooks see, and its hooks. */
  agent?: AgentRef;
  agentHooks?: AgentToolHooks;
  /**
   * In-process `callTool` only: asked when the target needs approval. Without it such a call is refused with a
   * message (never an abort of the run).
   */
  approve?: ToolApprovalHandler;
  /** In-process only: how many operations' searched sets are remembered (default 1,000, oldest dropped). */
  maxTrackedOperations?: number;
}

/** The result of {@link ToolRouter.search}: what the model gets, and what ranking it cost. */
export interface ToolRouterSearch {
  result: ToolSearchResult;
  ranking: ToolRanking;
  topK: number;
}

/** How the pool's tool texts split into embedding batches (one `embedBatch` activity each). */
export type { EmbeddingPlan } from '../protocol/routing.js';

/** Read access to the pool: a `ToolManager`, or the registered tools minus the routing built-ins. */
export interface ToolPool {
  getToolByName(name: string): RegisteredTool | undefined;
  getAllTools(): RegisteredTool[];
}

/**
 * The pool of a routing without an explicit `pool`: every registered tool except tools named `searchTools` or
 * `callTool` (a user's tool of that name is shown directly instead of the built-in).
 */
export function registeredPool(registered: ToolManager): ToolPool {
  return {
    getToolByName: (name) => (ROUTING_TOOL_NAMES.includes(name) ? undefined : registered.getToolByName(name)),
    getAllTools: () => registered.getAllTools().filter((tool) => !ROUTING_TOOL_NAMES.includes(tool.name)),
  };
}

/**
 * Tool routing over a tool manager: the `searchTools` and `callTool` tools, the visible tool set, the pool, and
 * the operations the durable runtime calls from its activities (`search` in `rankTools`, `warmBatch` in
 * `embedBatch`, `checkCall` when a `callTool` call arrives). Usable in-process without Temporal: its two tools
 * have real `execute` functions. Strategy and embedding cache come from the (worker's) {@link ToolSearchService},
 * never from the router, so routers may be created per run at no cost.
 */
export class ToolRouter {
  readonly config: ToolRoutingConfig;
  readonly service: ToolSearchService;
  /** Default true: `callTool` refuses tools that no search of the operation returned. */
  readonly enforceSearchBeforeCall: boolean;
  /** The built-in `searchTools` (in-process execute: search, then remember the returned names). */
  readonly searchTools: AnyTool;
  /** The built-in `callTool` (in-process execute: check, approval, then the target's own pipeline). */
  readonly callTool: AnyTool;
  private readonly tools: () => ToolManager;
  private readonly explicitPool?: ToolManager;
  private readonly exposed: ToolManager;
  private readonly options: ToolRouterOptions;
  private readonly searched = new Map<string, Set<string>>();
  private readonly maxTrackedOperations: number;
  // The last pool and its sorted candidates: while the pool holds the same tool objects, a search reuses them.
  private lastPool: RegisteredTool[] = [];
  private lastCandidates: ToolSearchCandidate[] = [];

  constructor(options: ToolRouterOptions) {
    validateToolRoutingConfig(options.config);
    this.options = options;
    this.config = options.config ?? {};
    this.service = options.service ?? new ToolSearchService();
    this.enforceSearchBeforeCall = this.config.enforceSearchBeforeCall ?? true;
    const tools = options.tools;
    this.tools = typeof tools === 'function' ? tools : () => tools;
    this.explicitPool = this.config.pool ? new ToolManager(this.config.pool) : undefined;
    this.exposed = new ToolManager(this.config.expose ?? []);
    this.maxTrackedOperations = Math.max(1, options.maxTrackedOperations ?? 1_000);
    this.searchTools = new Tool({
      name: SEARCH_TOOLS_NAME,
      description: SEARCH_TOOLS_DESCRIPTION,
      parameters: searchToolsParameters,
      execute: (args, execOptions) => this.executeSearch(args, execOptions),
    });
    this.callTool = new Tool({
      name: CALL_TOOL_NAME,
      description: CALL_TOOL_DESCRIPTION,
      parameters: callToolParameters,
      execute: (args, execOptions) => this.executeCall(args, execOptions),
    });
  }

  /** The registered tools as they are now (so the pool follows `addTools`, `removeTools` and MCP tools). */
  registeredTools(): ToolManager {
    return this.tools();
  }

  /**
   * The pool: `config.pool` when given (`[]` pools nothing), else every registered tool except tools named
   * `searchTools`/`callTool` (a user's tool of that name is shown directly instead of the built-in).
   */
  pool(): ToolPool {
    return this.explicitPool ?? registeredPool(this.tools());
  }

  /**
   * What the model sees: `searchTools` and `callTool` (a registered user tool of the same name wins over each
   * built-in), then the exposed tools.
   */
  visibleTools(): RegisteredTool[] {
    const registered = this.tools();
    const builtin = (tool: AnyTool): RegisteredTool => {
      const own = this.exposed.getToolByName(tool.name) ?? registered.getToolByName(tool.name);
      return own && isUserDefinedTool(own) ? own : tool;
    };
    const visible = [builtin(this.searchTools), builtin(this.callTool)];
    for (const tool of this.exposed.getAllTools()) if (!ROUTING_TOOL_NAMES.includes(tool.name)) visible.push(tool);
    return visible;
  }

  /**
   * The tool a name means in a routed run: a visible one (built-ins, exposed, user tools named like the built-ins),
   * else a pool one. The runtime executes `callTool` targets looked up here, since an explicit `pool` or `expose` may
   * hold tools the agent never registered.
   */
  toolByName(name: string): RegisteredTool | undefined {
    return this.visibleTools().find((tool) => tool.name === name) ?? this.pool().getToolByName(name);
  }

  /** Names of {@link visibleTools}. */
  visibleNames(): Set<string> {
    return new Set(this.visibleTools().map((tool) => tool.name));
  }

  /** The pool tools a search ranks (callable ones only), sorted by name. */
  candidates(): ToolSearchCandidate[] {
    const pool = this.pool().getAllTools();
    if (pool.length !== this.lastPool.length || pool.some((tool, i) => tool !== this.lastPool[i])) {
      this.lastPool = pool;
      this.lastCandidates = searchCandidates(pool);
    }
    return this.lastCandidates;
  }

  /** The ranking this router uses: custom strategy, embedding (cosine) or lexical (BM25). */
  strategy(): ResolvedSearchStrategy {
    return this.service.strategyFor(this.config);
  }

  /** Top-K of a search: the call's, else `config.topK`, else the embedding config's, else 1 (capped). */
  topK(callTopK?: unknown): number {
    const strategy = this.strategy();
    return effectiveTopK({
      call: callTopK,
      config: this.config.topK,
      embedding: strategy.kind === 'embedding' ? strategy.topK : undefined,
    });
  }

  /** Ranks the current pool for a query (what the `rankTools` activity does). */
  async rank(
    query: string,
    topK: number,
    context: ToolSearchContext = { context: new Map() },
    candidates: readonly ToolSearchCandidate[] = this.candidates(),
  ): Promise<ToolRanking> {
    const resolved = this.strategy();
    if (resolved.kind === 'custom') {
      const selections = await resolved.strategy.select({ query, tools: [...candidates], topK, context });
      const stats = { candidates: candidates.length, embeddingCalls: 0, embeddedTexts: 0, cacheHits: 0 };
      return { selections: Array.isArray(selections) ? selections : [], stats };
    }
    if (resolved.kind === 'embedding') return resolved.strategy.rank(query, candidates, topK, context.abortSignal);
    return resolved.strategy.rank(query, candidates, topK);
  }

  /** A full search: rank, then build the `searchTools` result (no match → a message, nothing returned). */
  async search(input: { query: string; topK?: unknown; context?: ToolSearchContext }): Promise<ToolRouterSearch> {
    const topK = this.topK(input.topK);
    const query = typeof input.query === 'string' ? input.query.trim() : '';
    // The query is model output: the searchTools schema bounds it, and so does this entry point for runtimes that
    // call it directly.
    if (query === '' || query.length > MAX_TOOL_SEARCH_QUERY_LENGTH) {
      throw new RangeError(
        `A tool search needs a query of 1 to ${MAX_TOOL_SEARCH_QUERY_LENGTH} characters describing the tool wanted; ` +
          `got ${query.length}.`,
      );
    }
    const ranking = await this.rank(query, topK, input.context);
    const result = buildToolSearchResult({
      query,
      selections: ranking.selections,
      candidates: this.candidates(),
      topK,
    });
    return { result, ranking, topK };
  }

  /** Checks a `callTool` call against the pool and the names searched so far in the run. */
  checkCall(input: { name?: unknown; args?: unknown }, searched: Iterable<string>): Promise<CallToolCheck> {
    return checkCallTool(input, {
      pool: this.pool(),
      visibleNames: this.visibleNames(),
      searched: searched instanceof Set ? (searched as Set<string>) : new Set(searched),
      enforceSearchBeforeCall: this.enforceSearchBeforeCall,
    });
  }

  /**
   * How the pool's texts split into embedding batches, or undefined without an embedding model. The durable
   * runtime schedules one `embedBatch` activity per batch on a run's first search.
   */
  async embeddingPlan(): Promise<EmbeddingPlan | undefined> {
    const resolved = this.strategy();
    if (resolved.kind !== 'embedding') return undefined;
    const batchSize = await resolved.strategy.batchSize();
    const poolSize = this.candidates().length;
    return { modelKey: resolved.strategy.modelKey, batchSize, poolSize, batches: Math.ceil(poolSize / batchSize) };
  }

  /** Embeds batch `index` of the pool into the worker's cache (an `embedBatch` activity); counts only. */
  async warmBatch(index: number, batchSize: number, abortSignal?: AbortSignal): Promise<EmbeddingWarmup> {
    const resolved = this.strategy();
    if (resolved.kind !== 'embedding') return { texts: 0, embeddedTexts: 0, cacheHits: 0, calls: 0 };
    const slice = this.candidates().slice(index * batchSize, (index + 1) * batchSize);
    return resolved.strategy.warm(slice, abortSignal);
  }

  /** In-process: the names searched so far in an operation (a run). */
  searchedIn(operationId: string): ReadonlySet<string> {
    return this.searched.get(operationId) ?? new Set();
  }

  private markSearched(operationId: string, names: readonly string[]): void {
    if (names.length === 0) return;
    const set = this.searched.get(operationId) ?? new Set<string>();
    for (const name of names) set.add(name);
    this.searched.delete(operationId);
    this.searched.set(operationId, set);
    while (this.searched.size > this.maxTrackedOperations) this.searched.delete(this.searched.keys().next().value!);
  }

  private async executeSearch(args: { query: string; topK?: number }, options: ToolExecuteOptions) {
    const { result } = await this.search({
      query: args.query,
      topK: args.topK,
      context: {
        agentName: this.options.agent?.name,
        operationId: options.operationId,
        userId: options.userId,
        conversationId: options.conversationId,
        context: options.context,
        abortSignal: options.abortSignal,
      },
    });
    this.markSearched(options.operationId, searchedToolNames(result));
    return result;
  }

  private async executeCall(args: { name: string; args?: unknown }, options: ToolExecuteOptions): Promise<unknown> {
    const check = await this.checkCall(args, this.searchedIn(options.operationId));
    if (check.kind === 'refused') throw new CallToolRefusedError(check.reason, check.message, check.toolName);
    return runRoutedTarget({
      target: check.tool,
      args: check.args,
      options,
      agent: this.options.agent,
      agentHooks: this.options.agentHooks,
      approve: this.options.approve,
    });
  }
}

/** Creates a {@link ToolRouter}. Throws `ToolRoutingConfigError` for an invalid config. */
export function createToolRouter(options: ToolRouterOptions): ToolRouter {
  return new ToolRouter(options);
}
