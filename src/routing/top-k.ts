import { DEFAULT_TOOL_SEARCH_TOP_K, MAX_TOOL_SEARCH_TOP_K } from './constants.js';

/** The three places a search's top-K can come from, most specific first. */
export interface TopKSources {
  /** `topK` of the `searchTools` call (model output). */
  call?: unknown;
  /** `toolRouting.topK`. */
  config?: number;
  /** `toolRouting.embedding.topK`. */
  embedding?: number;
}

/**
 * How many tools a search returns: the call's `topK`, else the config's, else the embedding config's, else 1;
 * always an integer in 1..{@link MAX_TOOL_SEARCH_TOP_K}. A call value that is not a positive number is ignored
 * (the model's input is untrusted; the schema already refuses it, this is the second line). Pure and
 * import-free: workflow code may use it.
 */
export function effectiveTopK(sources: TopKSources): number {
  const fromCall = typeof sources.call === 'number' && Number.isFinite(sources.call) && sources.call >= 1;
  const chosen = fromCall
    ? (sources.call as number)
    : (sources.config ?? sources.embedding ?? DEFAULT_TOOL_SEARCH_TOP_K);
  return Math.min(MAX_TOOL_SEARCH_TOP_K, Math.max(1, Math.floor(chosen)));
}
