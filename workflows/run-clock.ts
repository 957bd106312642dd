/**
 * The time a run records (its events' `at`, when it asked for a decision or started a tool): workflow time, except
 * that the code continuing after a local activity reads the time the activity was called at.
 *
 * Workflow time after a local activity is not the same on replay. Temporal's worker moves it to the activity's
 * completion time, which the activity's marker records and replay reads back; but when a query reached the run while
 * the activity ran, the worker completes the workflow task with the query's answer and the marker, and delivers the
 * activity's result in the next task, whose start time is later. A worker that replays the run (to answer a query
 * of the finished run, or after an eviction) then stamps the same event another time than the run recorded in its
 * final record and published as it went. The time the activity was called at is the same either way.
 *
 * One per run, in its state: workflow modules are shared between the runs of a worker.
 */
export class RunClock {
  /** The time held since a local activity resolved, while workflow time is the one it resolved at. */
  private held: { at: number; seen: number } | undefined;

  /** Now, as the run records it. */
  now(): Date {
    return new Date(this.ms());
  }

  /** {@link now} in epoch milliseconds. */
  ms(): number {
    const now = Date.now();
    if (this.held?.seen === now) return this.held.at;
    // Workflow time moved on: a later workflow task (or another activation that moved it), the same on replay.
    this.held = undefined;
    return now;
  }

  /**
   * Holds the clock at `calledAt` (read from it just before a local activity was called) for the code that goes on
   * after the activity: call it first thing once the activity settled, resolved or failed. The hold ends when
   * workflow time changes.
   */
  holdAt(calledAt: number): void {
    this.held = { at: calledAt, seen: Date.now() };
  }
}
