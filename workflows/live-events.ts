import { CancellationScope, condition, proxyLocalActivities, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { LIVE_MEMO_KEY, type RunEvent } from '../src/protocol/index.js';
import type { EventLog } from './event-log.js';
import type { createActivities } from '../activities/index.js';

type Activities = ReturnType<typeof createActivities>;

// A local activity: it runs on the worker that runs the workflow task, records one marker, and needs no task round
// trip. Not retried: it never fails for Redis (it logs and counts), and a lost batch is in the run's event log.
const { publishLiveEvents } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

/** Events one local activity publishes at most. */
const MAX_BATCH = 100;

/**
 * The run's events on its live stream (Redis), for runs whose worker described them with `liveStream: 'redis'`:
 * every event the run's event log emits is queued and published by one local activity at a time, in `seq` order,
 * whatever the watchers (a watched run's history is an unwatched one's, event for event). {@link flushed} lets the
 * run wait until what it emitted is out before it starts a model call or ends, so watchers see each step's events
 * before the next step's model output, and the run's last event before it closes.
 */
export class LiveEvents {
  private readonly pending: RunEvent[] = [];
  private publishing = false;
  private readonly firstRunId = workflowInfo().firstExecutionRunId;

  /** Says in the run's memo where its live stream is (in each execution: a memo is not carried over). */
  constructor(events: EventLog) {
    upsertMemo({ [LIVE_MEMO_KEY]: this.firstRunId });
    // What this execution emitted before it knew (`run-started`). A continued execution's carried events were
    // published by the execution before, which waited for them before it continued as new.
    const continued = workflowInfo().continuedFromExecutionRunId !== undefined;
    if (!continued) this.pending.push(...events.all());
    events.onEmit((event) => this.push(event));
    // Not cancellable: a cancelled run still publishes its `cancelled` event (the run awaits it before it closes).
    void CancellationScope.nonCancellable(() => this.loop());
  }

  /** Queues an event (the event log's listener). */
  push(event: RunEvent): void {
    this.pending.push(event);
  }

  /** Resolves once every event queued so far was handed to Redis (or given up). */
  async flushed(): Promise<void> {
    // Not cancellable: a cancelled run waits here too before it closes, and a flush takes a local activity at most.
    await CancellationScope.nonCancellable(() => condition(() => this.pending.length === 0 && !this.publishing));
  }

  /** The live stream's id: the run's first execution (the stream goes on across continue-as-new). */
  get runId(): string {
    return this.firstRunId;
  }

  private async loop(): Promise<void> {
    for (;;) {
      await condition(() => this.pending.length > 0);
      const events = this.pending.splice(0, MAX_BATCH);
      this.publishing = true;
      try {
        await publishLiveEvents({ firstRunId: this.firstRunId, events });
      } catch {
        // Timed out (a local activity that could not finish): the events are in the run's log and history.
      } finally {
        this.publishing = false;
      }
    }
  }
}
