import type { ToolSearchSelection } from './types.js';

/**
 * Cosine similarity of two vectors, in [-1, 1]. 0 when either is all zeros (an empty text under a bag-of-words
 * model) or when their lengths differ (vectors of two different models are not comparable).
 */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (normA === 0 || normB === 0) return 0;
  return dot / Math.sqrt(normA * normB);
}

/**
 * Ranks named vectors by cosine similarity to a query vector: best first, ties by name (so every worker returns
 * the same order), at most `topK`. Only scores above `minScore` (default 0) count: a zero or negative similarity
 * says the tool is unrelated or opposite, and returning it anyway would be returning an arbitrary tool. An empty
 * result is a "no match".
 */
export function rankByCosine(
  query: ArrayLike<number>,
  items: ReadonlyArray<{ name: string; vector: ArrayLike<number> }>,
  topK: number,
  minScore = 0,
): ToolSearchSelection[] {
  const scored: ToolSearchSelection[] = [];
  for (const item of items) {
    const score = cosineSimilarity(query, item.vector);
    if (score > minScore) scored.push({ name: item.name, score });
  }
  scored.sort((a, b) => b.score! - a.score! || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, Math.max(0, topK));
}
