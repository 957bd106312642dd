// "Did you mean …?" for a mistyped command: the closest known name by edit distance, when it is close enough to be
// a typo rather than a different word.

/** The candidate closest to `typed` (case-insensitive), or undefined when none is within a typo's distance. */
export function closestName(typed: string, candidates: readonly string[]): string | undefined {
  return closestNames(typed, candidates)[0];
}

/** Every candidate at the smallest distance from `typed` within a typo's distance ("stat": start and state). */
export function closestNames(typed: string, candidates: readonly string[]): string[] {
  const word = typed.toLowerCase();
  // One edit per three letters, at least one: "stat" → "state", "lsit" → "list", but "foo" matches nothing.
  const allowed = Math.max(1, Math.floor(word.length / 3));
  let best = Infinity;
  let names: string[] = [];
  for (const name of candidates) {
    const distance = editDistance(word, name.toLowerCase());
    if (distance > allowed) continue;
    if (distance < best) [best, names] = [distance, [name]];
    else if (distance === best) names.push(name);
  }
  return names;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}
