import { ActivityCancellationType, isCancellation, log, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  defaultModelOutput,
  notSearchedMessage,
  searchedNames,
  type CheckedToolCall,
  type EmbeddingPlan,
  type JsonValue,
  type RunRef,
  type ToolCallRoute,
  type ToolResultOutput,
  type TranscriptMark,
} from '../src/protocol/index.js';
import type { RoutingState } from './routing-state.js';
import type { AgentRunState } from './run-state.js';
import { ToolSlots } from './tool-slots.js';

type Activities = ReturnType<typeof createActivities>;
type SearchRoute = Extract<ToolCallRoute, { kind: 'search' }>;
type CallRoute = Extract<ToolCallRoute, { kind: 'call' }>;

// Ranking and embedding are the worker's own code (no user timeouts apply). A cold cache on a CPU model can take a
// minute for a large pool, so the timeout is generous and the activities heartbeat.
const { rankTools, embedBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/** `embedBatch` activities of one warm-up in flight at once: the pool's batches are embedded in parallel, bounded. */
const EMBED_BATCH_CONCURRENCY = 8;

/**
 * Most `embedBatch` activities one warm-up schedules (the plan comes from the worker). Batches past it are left to
 * `rankTools`, which embeds whatever the cache lacks itself.
 */
const MAX_EMBED_BATCHES = 256;

/** Characters of a failure's message the model reads. */
const MAX_ERROR_CHARS = 1_000;

/** What a search needs of its step. */
export interface SearchStepContext {
  state: Pick<AgentRunState, 'routing' | 'toolStarted' | 'toolFinished'>;
  agentName: string;
  run: RunRef;
  step: number;
  messageCount: number;
  mark: TranscriptMark;
  /** The step's tool slots: a search's `rankTools` takes one like a tool activity. */
  slots: ToolSlots;
}

/** A search's answer: what the model reads, and the `rankTools` output it references (when it ran). */
export interface SearchAnswer {
  output: ToolResultOutput;
  outcome: 'ok' | 'error';
  /** What the `tool-result` event previews. */
  event: JsonValue;
  outputId?: string;
}

/**
 * Runs one `searchTools` call: on the run's first search with an embedding model, warms the worker's cache with
 * one `embedBatch` activity per batch of the pool (counts come back, never vectors); then one `rankTools` activity
 * ranks and builds the bounded result. The returned names join the run's searched set. A search that fails after
 * its retries is an error result the model reads; cancellation ends the run as usual.
 */
export async function searchTools(
  ctx: SearchStepContext,
  call: Extract<CheckedToolCall, { status: 'valid' }>,
  route: SearchRoute,
): Promise<SearchAnswer> {
  const { state } = ctx;
  const { routing } = state;
  try {
    // Scheduled before any await, so the call reaches its first command synchronously (replay order).
    const warmUp = route.embedding
      ? routing.warmUp(route.embedding.modelKey, () => warm(ctx, route.embedding!))
      : undefined;
    if (warmUp) await warmUp;
    const slot = ctx.slots.acquire();
    if (slot) await slot;
    // Shown as a running tool (state query, `tool-started` event) like any tool activity.
    state.toolStarted(ctx.step, call);
    let found;
    try {
      found = await rankTools({
        agentName: ctx.agentName,
        run: ctx.run,
        step: ctx.step,
        messageCount: ctx.messageCount,
        mark: ctx.mark,
        toolCallId: call.toolCallId,
        query: route.query,
        topK: route.topK,
      });
    } finally {
      state.toolFinished(call.toolCallId);
      ctx.slots.release();
    }
    routing.markSearched(searchedNames(found.result));
    const event = found.result as unknown as JsonValue;
    return { output: defaultModelOutput(found.result), outcome: 'ok', event, outputId: found.outputId };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = rootCauseMessage(err);
    const why = cause.length > MAX_ERROR_CHARS ? `${cause.slice(0, MAX_ERROR_CHARS)}…` : cause;
    const message = `Tool search failed: ${why}. Search again in a moment, or answer without a tool.`;
    return { output: { type: 'error-text', value: message }, outcome: 'error', event: message };
  }
}

/**
 * The refusal of a `callTool` call whose target no search of this run returned, while search-before-call is
 * enforced; undefined otherwise (and for searches). The searched set is workflow state, so this check is the
 * workflow's, not the worker's.
 */
export function searchRequired(routing: RoutingState, route: ToolCallRoute): string | undefined {
  if (route.kind !== 'call' || !route.enforceSearchBeforeCall || routing.wasSearched(route.target)) return undefined;
  return notSearchedMessage(route.target);
}

/**
 * `callTool`'s target as a call of its own: the model's tool-call id, the target's name, approval need,
 * client-side flag and activity options, marked `via: 'callTool'` so its `executeTool` looks the target up in the
 * run's pool, as `generate` checked it. It then runs exactly as a direct call of the target.
 */
export function targetCall(call: Extract<CheckedToolCall, { status: 'valid' }>, route: CallRoute) {
  const { route: _route, ...target } = call;
  return { ...target, toolName: route.target, via: 'callTool' as const };
}

/**
 * Embeds the pool's batches into the worker's cache, at most {@link EMBED_BATCH_CONCURRENCY} at once. A failed
 * warm-up is not the search's failure: `rankTools` embeds what the cache lacks itself.
 */
async function warm(ctx: SearchStepContext, plan: EmbeddingPlan): Promise<void> {
  const slots = new ToolSlots(EMBED_BATCH_CONCURRENCY);
  const batches = Math.max(0, Math.min(MAX_EMBED_BATCHES, Math.floor(plan.batches)));
  const one = async (index: number) => {
    const slot = slots.acquire();
    if (slot) await slot;
    try {
      await embedBatch({
        agentName: ctx.agentName,
        run: ctx.run,
        messageCount: ctx.messageCount,
        mark: ctx.mark,
        modelKey: plan.modelKey,
        index,
        batchSize: plan.batchSize,
      });
    } finally {
      slots.release();
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: batches }, (_, index) => one(index)));
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (!failed) return;
  if (isCancellation(failed.reason)) throw failed.reason;
  log.warn('Embedding warm-up failed; the search embeds what it lacks itself', {
    error: rootCauseMessage(failed.reason),
  });
}

/** The innermost cause's message: "Activity task failed" says less than what made the activity fail. */
function rootCauseMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
