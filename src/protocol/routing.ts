// Tool routing as data: what a run's routing looks like in history, how a checked `searchTools`/`callTool` call is
// marked, and the inputs and outputs of the `embedBatch` and `rankTools` activities. Workflow-safe: types and pure
// functions only. The routing library (src/routing) re-exports the types it shares with the wire.
import type { JsonObject, JsonValue } from './json.js';
import type { RunRef, TranscriptMark } from './activity-io.js';

/**
 * A run's routing override, as a client sends it (plain JSON, so tools are named, not given): `false` offers the
 * agent's tools directly; `true` routes with the agent's settings (or the defaults); an object routes with its
 * fields over the agent's.
 */
export type RunToolRoutingOverride =
  | boolean
  | {
      /** Names of the run's tools to pool (default: the agent's pool). */
      pool?: string[];
      /** Names of the run's tools to show directly. */
      expose?: string[];
      /** A `provider/model` embedding model string. */
      embedding?: string;
      topK?: number;
      enforceSearchBeforeCall?: boolean;
    };

/** A strategy's pick: a candidate's name and, optionally, its score and why it was picked. */
export interface ToolSearchSelection {
  name: string;
  score?: number;
  reason?: string;
}

/** Counters of one ranking, for activity results, benchmarks and tests. */
export interface ToolRankingStats {
  /** Candidates ranked. */
  candidates: number;
  /** Calls made to the embedding model (1 on a warm cache: the query). */
  embeddingCalls: number;
  /** Tool texts embedded because the cache did not have them. */
  embeddedTexts: number;
  /** Tool texts found in the cache. */
  cacheHits: number;
}

/** One tool in a `searchTools` result. */
export interface ToolSearchResultItem {
  name: string;
  description: string | null;
  tags: string[] | null;
  parametersSchema: JsonObject | null;
  outputSchema: JsonObject | null;
  score?: number;
  reason?: string;
  /** Set when the schemas were left out to keep the result within its size budget. */
  note?: string;
}

/** What `searchTools` returns to the model. */
export interface ToolSearchResult {
  query: string;
  selections: ToolSearchSelection[];
  tools: ToolSearchResultItem[];
  /** Set when nothing matched: what the model can do next. */
  message?: string;
}

/** How the pool's tool texts split into embedding batches (one `embedBatch` activity each). */
export interface EmbeddingPlan {
  /** The embedding model's identity in the worker's cache. */
  modelKey: string;
  batchSize: number;
  poolSize: number;
  batches: number;
}

/**
 * What a run's routing looks like, as plain JSON for workflow history (recorded once per run by `describeAgent`):
 * which tools the model sees, how many are pooled, the ranking, the default top-K and — with an embedding model —
 * how the pool splits into `embedBatch` activities. No tool definitions and no vectors.
 */
export interface ToolRoutingDescription {
  enabled: boolean;
  /** Names of the tools the model sees (built-ins first when routed). */
  visibleTools: string[];
  /** Pool tools a search ranks (callable ones). */
  candidates?: number;
  enforceSearchBeforeCall?: boolean;
  /** Tools a search returns when the call does not say. */
  topK?: number;
  /** `hybrid`: an embedding model's cosine fused with BM25+; `embedding`: cosine alone (`lexicalWeight: 0`). */
  ranking?: 'lexical' | 'embedding' | 'hybrid' | 'custom';
  embedding?: EmbeddingPlan;
}

/**
 * How the `generate` activity marked a routed call, for the workflow to act on:
 * - `search`: a valid `searchTools` call; the workflow ranks (and, on the run's first search with an embedding
 *   model, warms the worker's cache batch by batch as `embedding` plans) and answers with the result;
 * - `call`: a `callTool` call whose target passed the pool, callable and argument checks (or failed only the
 *   argument check: then the call is `invalid`, and the workflow's searched check comes first). The call carries
 *   the target's approval need and activity options; `args` are the target's arguments as validated. `args` is
 *   left out when they are the model's own (`callTool`'s `args`, an object or a JSON string of one, unchanged by validation) and the workflow
 *   said it reads them from the model's call (`GenerateInput.argsFromCall`): a large argument is recorded once.
 */
export type ToolCallRoute =
  | { kind: 'search'; query: string; topK: number; embedding?: EmbeddingPlan }
  | { kind: 'call'; target: string; args?: JsonValue; enforceSearchBeforeCall: boolean };

/** Input of the `embedBatch` activity: embeds batch `index` of the run's pool into the worker's cache. */
export interface EmbedBatchInput {
  agentName: string;
  run: RunRef;
  /** Transcript length when the step's tools started (the run's context comes with it). */
  messageCount: number;
  mark?: TranscriptMark;
  /** The plan's model identity (the worker embeds with the run's current model). */
  modelKey: string;
  index: number;
  batchSize: number;
}

/** Output of `embedBatch`: counts only — vectors stay in the worker's cache and never enter history. */
export interface EmbedBatchResult {
  version: 1;
  texts: number;
  embeddedTexts: number;
  cacheHits: number;
  calls: number;
}

/** Input of the `rankTools` activity: one `searchTools` call. */
export interface RankToolsInput {
  agentName: string;
  run: RunRef;
  step: number;
  messageCount: number;
  mark?: TranscriptMark;
  toolCallId: string;
  query: string;
  topK: number;
}

/** Output of `rankTools`: the bounded result the model sees, and what the ranking cost. */
export interface RankToolsResult {
  version: 1;
  result: ToolSearchResult;
  stats: ToolRankingStats;
  /** Unique per attempt: the next model call references the result instead of copying it (as for executeTool). */
  outputId: string;
}

/** The names a search result marks as searched: exactly the tools it returned. */
export function searchedNames(result: ToolSearchResult): string[] {
  return result.tools.map((tool) => tool.name);
}

/** What `callTool` answers for a tool no search of the run returned, while search-before-call is enforced. */
export function notSearchedMessage(name: string): string {
  return (
    `Tool "${name}" must be searched via searchTools before calling. Call searchTools with a description of what ` +
    `you need, then call one of the tools it returns with the schema it shows.`
  );
}
