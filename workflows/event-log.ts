import type { RunEvent, RunEventBody } from '../src/protocol/index.js';
import type { RunClock } from './run-clock.js';

/**
 * The run's ordered event log. Sequence numbers are gap-free from 1 and continue across continue-as-new, so a
 * client reading `after: n` never misses or repeats an event.
 */
export class EventLog {
  private readonly events: RunEvent[];
  private readonly listeners: Array<(event: RunEvent) => void> = [];

  /** `clock` stamps the events (the run's, the same on replay). */
  constructor(
    carried: RunEvent[] = [],
    private readonly clock: RunClock,
  ) {
    this.events = [...carried];
  }

  /** Appends an event stamped with the run's clock (deterministic under replay). */
  emit(body: RunEventBody): RunEvent {
    const event = this.preview(body);
    this.events.push(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  /** Hands every event emitted from now on to `listener` too (the run's stream, its search attributes). */
  onEmit(listener: (event: RunEvent) => void): void {
    this.listeners.push(listener);
  }

  /** The event `emit(body)` would append now, without appending it. */
  preview(body: RunEventBody): RunEvent {
    return { ...body, seq: this.lastSeq + 1, at: this.clock.now().toISOString() } as RunEvent;
  }

  /** The last `count` events. */
  tail(count: number): RunEvent[] {
    return this.events.slice(Math.max(0, this.events.length - count));
  }

  get lastSeq(): number {
    return this.events.length === 0 ? 0 : this.events[this.events.length - 1]!.seq;
  }

  /** Events after `seq`, oldest first. */
  after(seq: number, limit = 1_000): RunEvent[] {
    // Sequence numbers are dense, so the first event after `seq` sits at a computable index.
    const first = this.events.length === 0 ? 1 : this.events[0]!.seq;
    const start = Math.max(0, seq + 1 - first);
    return this.events.slice(start, start + Math.max(0, limit));
  }

  all(): RunEvent[] {
    return [...this.events];
  }
}
