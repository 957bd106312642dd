import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Agent } from '../src/agent/agent.js';
import {
  FailureType,
  defaultModelOutput,
  type EmbedBatchInput,
  type EmbedBatchResult,
  type RankToolsInput,
  type RankToolsResult,
  type RunContextData,
  type RunRef,
  type TranscriptMark,
} from '../src/protocol/index.js';
import { MAX_EMBEDDING_BATCH_SIZE } from '../src/routing/constants.js';
import type { RunToolRouting } from '../src/routing/resolve-run-routing.js';
import { redactSecrets } from '../src/secrets/redact-secrets.js';
import { type ActivityDependencies, requireAgent, toToolContext } from '../src/runtime/dependencies.js';
import { startHeartbeating } from '../src/runtime/heartbeat.js';
import { routingFailure, runRouting } from './run-routing.js';

type RoutedRun = Extract<RunToolRouting, { enabled: true }>;

/**
 * One `searchTools` call of a durable run: ranks the run's current pool for the query (lexical, embedding or the
 * agent's custom strategy, which may do I/O here) and returns the bounded result the model sees. With an embedding
 * model the query is embedded once; tool vectors come from the worker's cache, and a cold cache (another worker,
 * or a restarted one) embeds what it lacks itself, in batches. Vectors never leave the worker: the result holds
 * names, scores and schemas.
 */
export function createRankTools(deps: ActivityDependencies) {
  return async function rankTools(input: RankToolsInput): Promise<RankToolsResult> {
    const ctx = Context.current();
    const agent = requireAgent(deps, input.agentName);
    const heartbeat = startHeartbeating();
    try {
      const { routing, run } = await routedRun(deps, agent, input);
      if (!routing) {
        // The worker's agent no longer routes this run (a deploy changed it mid-run): its tools are offered directly.
        const message = 'Tool search is not available in this run any more: call the tools you are offered directly.';
        return answered(deps, input, { query: input.query, selections: [], tools: [], message }, zeroStats());
      }
      const { router } = routing;
      let search;
      try {
        search = await router.search({
          query: input.query,
          topK: input.topK,
          context: {
            agentName: agent.name,
            operationId: input.run.workflowId,
            ...toToolContext(run),
            abortSignal: ctx.cancellationSignal,
          },
        });
      } catch (err) {
        throw router.strategy().kind === 'custom' ? strategyFailure(err, ctx.cancellationSignal) : routingFailure(err);
      }
      return answered(deps, input, search.result, search.ranking.stats);
    } finally {
      heartbeat.stop();
    }
  };
}

/**
 * Embeds batch `index` of the run's pool (name-sorted, as every worker sorts it) into the worker's cache: only
 * texts the cache lacks. Returns counts, never vectors. The workflow schedules one per batch, in parallel, on a
 * run's first search with an embedding model.
 */
export function createEmbedBatch(deps: ActivityDependencies) {
  return async function embedBatch(input: EmbedBatchInput): Promise<EmbedBatchResult> {
    const ctx = Context.current();
    const agent = requireAgent(deps, input.agentName);
    const heartbeat = startHeartbeating();
    try {
      const { routing } = await routedRun(deps, agent, input);
      const index = Math.max(0, Math.floor(Number(input.index) || 0));
      const batchSize = Math.min(MAX_EMBEDDING_BATCH_SIZE, Math.max(1, Math.floor(Number(input.batchSize) || 1)));
      if (!routing) return { version: 1, texts: 0, embeddedTexts: 0, cacheHits: 0, calls: 0 };
      try {
        const warmed = await routing.router.warmBatch(index, batchSize, ctx.cancellationSignal);
        return { version: 1, ...warmed };
      } catch (err) {
        throw routingFailure(err, ctx.cancellationSignal);
      }
    } finally {
      heartbeat.stop();
    }
  };
}

/** The run's context and its routing, when the run is (still) routed. */
async function routedRun(
  deps: ActivityDependencies,
  agent: Agent,
  input: { run: RunRef; messageCount: number; mark?: TranscriptMark },
): Promise<{ routing: RoutedRun | undefined; run: RunContextData }> {
  const transcript = await deps.transcripts.read(input.run, input.messageCount, input.mark ? { mark: input.mark } : {});
  const tools = await deps.runTools.get(agent, input.run, transcript.run);
  const routing = runRouting(deps, agent, tools, transcript.run);
  return { routing: routing?.enabled ? routing : undefined, run: transcript.run };
}

/** The activity's result; the worker keeps the output the model will see, so the next step references it. */
function answered(
  deps: ActivityDependencies,
  input: RankToolsInput,
  result: RankToolsResult['result'],
  stats: RankToolsResult['stats'],
): RankToolsResult {
  const outputId = randomUUID();
  deps.transcripts.rememberToolOutput(input.run, input.toolCallId, outputId, defaultModelOutput(result));
  return { version: 1, result, stats, outputId };
}

function zeroStats(): RankToolsResult['stats'] {
  return { candidates: 0, embeddingCalls: 0, embeddedTexts: 0, cacheHits: 0 };
}

/** A custom strategy's error: retryable (it may do I/O), secrets redacted; aborts pass through. */
function strategyFailure(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || err instanceof ApplicationFailure) return err;
  const message = redactSecrets(err instanceof Error ? err.message : String(err));
  return ApplicationFailure.create({
    type: FailureType.RoutingStrategyFailed,
    message: `The agent's tool search strategy failed: ${message}`,
  });
}
