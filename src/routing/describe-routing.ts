import type { ToolRoutingDescription } from '../protocol/routing.js';
import type { RunToolRouting } from './resolve-run-routing.js';
import type { ResolvedSearchStrategy } from './tool-search-service.js';

export type { ToolRoutingDescription } from '../protocol/routing.js';

/**
 * Describes a run's routing as plain JSON for history (see {@link ToolRoutingDescription}): visible names, pool
 * size, ranking, default top-K and the embedding batch plan (which resolves the embedding model's batch size).
 */
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
    topK: router.topK(),
    ranking: rankingOf(router.strategy()),
    ...(embedding ? { embedding } : {}),
  };
}

function rankingOf(resolved: ResolvedSearchStrategy): NonNullable<ToolRoutingDescription['ranking']> {
  if (resolved.kind !== 'embedding') return resolved.kind;
  return resolved.strategy.lexicalWeight > 0 ? 'hybrid' : 'embedding';
}
