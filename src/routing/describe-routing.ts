import type { RunToolRouting } from './resolve-run-routing.js';
import type { EmbeddingPlan } from './tool-router.js';
import type { ResolvedSearchStrategy } from './tool-search-service.js';

/**
 * What a run's routing looks like, as plain JSON for workflow history (recorded once per run, like the agent's
 * tool descriptors): which tools the model sees, how many are pooled, the ranking, and — with an embedding model —
 * how the pool splits into `embedBatch` activities. No tool definitions and no vectors.
 */
export interface ToolRoutingDescription {
  enabled: boolean;
  /** Names of the tools the model sees (built-ins first when routed). */
  visibleTools: string[];
  /** Pool tools a search ranks (callable ones). */
  candidates?: number;
  enforceSearchBeforeCall?: boolean;
  /** `hybrid`: an embedding model's cosine fused with BM25+; `embedding`: cosine alone (`lexicalWeight: 0`). */
  ranking?: 'lexical' | 'embedding' | 'hybrid' | 'custom';
  embedding?: EmbeddingPlan;
}

/** Describes a run's routing (see {@link ToolRoutingDescription}); resolves the embedding batch size. */
export async function describeToolRouting(run: RunToolRouting): Promise<ToolRoutingDescription> {
  const visibleTools = run.visible.map((tool) => tool.name);
  if (!run.enabled) return { enabled: false, visibleTools };
  const { router } = run;
  const embedding = await router.embeddingPlan();
  return {
    enabled: true,
    visibleTools,
    candidates: router.candidates().length,
    enforceSearchBeforeCall: router.enforceSearchBeforeCall,
    ranking: rankingOf(router.strategy()),
    ...(embedding ? { embedding } : {}),
  };
}

function rankingOf(resolved: ResolvedSearchStrategy): NonNullable<ToolRoutingDescription['ranking']> {
  if (resolved.kind !== 'embedding') return resolved.kind;
  return resolved.strategy.lexicalWeight > 0 ? 'hybrid' : 'embedding';
}
