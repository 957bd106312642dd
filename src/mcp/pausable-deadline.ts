/**
 * A timeout whose clock can stop. An MCP call's request timeout must not count the time a person takes to answer
 * an elicitation, so the call pauses its deadline while one is outstanding (nested pauses are counted) and
 * resumes it with the time that was left.
 */
export class PausableDeadline {
  private remainingMs: number;
  private startedAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pauses = 0;
  private done = false;

  /** Starts running at once; `onExpire` is called at most once. */
  constructor(
    private readonly timeoutMs: number,
    private readonly onExpire: () => void,
  ) {
    this.remainingMs = timeoutMs;
    this.arm();
  }

  /** True once the deadline fired. */
  get expired(): boolean {
    return this.done && this.remainingMs <= 0;
  }

  /** Stops the clock (until every pause is matched by a {@link resume}). */
  pause(): void {
    if (this.done) return;
    this.pauses += 1;
    if (this.pauses > 1 || this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remainingMs = Math.max(0, this.remainingMs - (Date.now() - this.startedAt));
  }

  /** Restarts the clock with the time that was left. */
  resume(): void {
    if (this.done || this.pauses === 0) return;
    this.pauses -= 1;
    if (this.pauses === 0) this.arm();
  }

  /** Gives the full timeout again (progress counts as life when the caller asks for it). Keeps a pause. */
  restart(): void {
    if (this.done) return;
    this.remainingMs = this.timeoutMs;
    if (this.pauses > 0) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.arm();
  }

  /** Stops for good; the deadline will not fire. */
  cancel(): void {
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.remainingMs = 0;
      this.done = true;
      this.onExpire();
    }, this.remainingMs);
  }
}
