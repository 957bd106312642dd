import type { RoutingContinuation } from '../src/protocol/index.js';

/**
 * Most searched names a run keeps. Each search returns at most 20, so this is hundreds of searches over distinct
 * tools; past it the least recently returned names go first (calling one of them again needs a new search).
 */
const MAX_SEARCHED_NAMES = 10_000;

/**
 * A routed run's search state: the names `searchTools` returned in this run (what `callTool`'s searched check
 * reads) and the embedding models whose pool the run warmed. Plain data in workflow state: rebuilt by replay after
 * a worker restart, carried over continue-as-new, never sent to activities.
 */
export class RoutingState {
  private readonly searched: Set<string>;
  private readonly warmed: Set<string>;
  // The warm-up each model's first search started in this execution, so a second search of the same step waits
  // for it instead of embedding the pool again. Derived from history like everything else here; not carried.
  private readonly warming = new Map<string, Promise<void>>();

  constructor(carried?: RoutingContinuation) {
    this.searched = new Set(carried?.searched ?? []);
    this.warmed = new Set(carried?.warmedEmbeddings ?? []);
  }

  /** Remembers the names a search returned (most recent last). */
  markSearched(names: readonly string[]): void {
    for (const name of names) {
      this.searched.delete(name);
      this.searched.add(name);
    }
    while (this.searched.size > MAX_SEARCHED_NAMES) this.searched.delete(this.searched.values().next().value!);
  }

  /** True when a search of this run returned `name`. */
  wasSearched(name: string): boolean {
    return this.searched.has(name);
  }

  /**
   * The warm-up of `modelKey`'s pool: `start()` runs it on the run's first search with that model; later searches
   * get the same promise while it runs, and undefined once the run has warmed that model (in this execution or an
   * earlier one).
   */
  warmUp(modelKey: string, start: () => Promise<void>): Promise<void> | undefined {
    const running = this.warming.get(modelKey);
    if (running) return running;
    if (this.warmed.has(modelKey)) return undefined;
    this.warmed.add(modelKey);
    const started = start().finally(() => this.warming.delete(modelKey));
    this.warming.set(modelKey, started);
    return started;
  }

  /** What continue-as-new carries; undefined for a run that never searched (its input stays as before routing). */
  carry(): RoutingContinuation | undefined {
    if (this.searched.size === 0 && this.warmed.size === 0) return undefined;
    return {
      searched: [...this.searched],
      ...(this.warmed.size > 0 ? { warmedEmbeddings: [...this.warmed] } : {}),
    };
  }
}
