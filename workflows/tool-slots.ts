/**
 * Bounds how many tool activities of one step run at once, handing freed slots to waiting calls in call order.
 * Plain promises, no timers: deterministic in the workflow sandbox. `acquire` returns nothing when a slot is free,
 * so a call that does not have to wait reaches its activity synchronously (replay depends on command order).
 */
export class ToolSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Takes a slot: undefined when one is free now, else a promise that resolves when one is handed over. */
  acquire(): Promise<void> | undefined {
    if (this.running < this.limit) {
      this.running++;
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Gives a slot back: to the longest-waiting call, if any. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
