// A run's stream read from its live stream on Redis (issue 32): the same parts as from the run's Workflow Streams
// log, from the raw items Redis holds, with no update, query or signal on the run per watcher.
import type { WorkflowHandle } from '@temporalio/client';
import { LiveStreamUnavailableError, liveRunItems } from '../live/live-run-items.js';
import type { LiveRunRef, LiveStream } from '../live/live-stream.js';
import type { RunStreamOptions, RunStreamPart } from './run-stream.js';
import { LiveProgressEvents } from './live-progress-events.js';
import { StreamItemReader } from './stream-items.js';

/**
 * The parts of a run whose live stream is on Redis, from `options.from`: the same parts as from the run's Workflow
 * Streams log, a streaming tool's shown yields included as `tool-progress` events (see {@link LiveProgressEvents};
 * each comes right after its `progress` part, at the same offset). The stream is read from its start, so a watcher
 * resuming from an offset gets the events the run would have shown there. When Redis cannot be read (down,
 * unreachable), a `live-unavailable` part says so, and the run's events after the last one read follow from the run
 * itself (`fromRun`: its Workflow Streams log, which holds the run's events, or its history once it closed), so the
 * watcher still gets each step's final text and the run's end. Their offsets continue after the last live offset
 * (they are not Redis offsets: resume such a watcher from the start, or by event `seq`).
 */
export async function* streamLiveRun(
  live: LiveStream,
  run: LiveRunRef,
  handle: WorkflowHandle,
  options: RunStreamOptions,
  fromRun: (options: RunStreamOptions) => AsyncGenerator<RunStreamPart>,
): AsyncGenerator<RunStreamPart> {
  const from = Math.max(0, Math.trunc(options.from ?? 0));
  const reader = new StreamItemReader(0);
  const progress = new LiveProgressEvents();
  const { signal } = options;
  let lastSeq = 0;
  // Asked only after a whole quiet blocking read: a describe call, which no worker answers and the run never sees.
  const isClosed = async (): Promise<boolean> => (await handle.describe()).status.name !== 'RUNNING';
  try {
    for await (const item of liveRunItems(live, run, 0, { isClosed, ...(signal ? { signal } : {}) })) {
      for (const part of reader.read(item)) {
        const made: RunStreamPart[] = [part];
        if (part.type === 'event') {
          lastSeq = part.event.seq;
          progress.event(part.event);
        } else if (part.type === 'progress') {
          const event = progress.progress(part.progress);
          if (event) made.push({ type: 'event', offset: part.offset, event });
        }
        for (const shown of made) {
          // Before `from`: read only to know what the run showed (a gap that ends there is no gap of this watcher).
          if (shown.offset < from || (shown.type === 'truncated' && shown.offset === from)) continue;
          yield shown.type === 'truncated' && shown.missedFrom < from ? { ...shown, missedFrom: from } : shown;
        }
      }
    }
    return;
  } catch (error) {
    if (!(error instanceof LiveStreamUnavailableError)) throw error;
    yield { type: 'live-unavailable', offset: Math.max(reader.next, from), reason: error.message };
  }
  // The run's events after the last one read, from the run (its events are in its own log on either transport).
  const base = Math.max(reader.next, from) + 1;
  for await (const part of fromRun(signal ? { signal } : {})) {
    if (part.type !== 'event' || part.event.seq <= lastSeq) continue;
    yield { ...part, offset: base + part.offset };
  }
}
