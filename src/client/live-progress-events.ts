// A streaming tool's yields on Redis as the `tool-progress` events Workflow Streams watchers get. On Workflow
// Streams the run itself checks each yield and, when it shows it, publishes a `tool-progress` event beside the
// `progress` item; on Redis the tool's activity publishes straight to Redis and the run never sees the yield, so the
// reader applies the run's rules to the `progress` items and makes the events (issue 32).
import type { RunEvent, StreamedProgress } from '../protocol/index.js';

type ToolProgressEvent = Extract<RunEvent, { type: 'tool-progress' }>;

/** What the reader knows of one tool call's yields. */
interface CallProgress {
  /** The newest activity attempt that published a yield shown. */
  attempt: number;
  /** The last yield shown (the tool's own count). */
  seq: number;
  /** The call's `tool-result` event was read: later yields are a zombie attempt's. */
  ended: boolean;
}

/**
 * Turns a run's `progress` items read from Redis into `tool-progress` events, by the rules the run applies on
 * Workflow Streams: a yield is shown when it is newer than the last one shown of its call (a retried attempt's
 * repeated yields are dropped until they pass it), never from an attempt older than one already shown, and not
 * after the call's result. Push every part in stream order.
 *
 * The event is not in the run's history, so it has no `seq` of its own: it carries the `seq` and `at` of the run
 * event read before it (the run's own events keep their gap-free `seq`). A yield read before any run event makes
 * no event.
 */
export class LiveProgressEvents {
  private readonly calls = new Map<string, CallProgress>();
  private last: { seq: number; at: string } | undefined;

  /** Records a run event: the `seq` the next yields carry, and the end of a call's yields. */
  event(event: RunEvent): void {
    this.last = { seq: event.seq, at: event.at };
    if (event.type === 'tool-result') this.call(event.toolCallId).ended = true;
  }

  /** The `tool-progress` event `progress` makes, when the run would show it. */
  progress(progress: StreamedProgress): ToolProgressEvent | undefined {
    if (!this.last || typeof progress?.toolCallId !== 'string') return undefined;
    if (!Number.isSafeInteger(progress.seq) || !Number.isSafeInteger(progress.attempt)) return undefined;
    const call = this.call(progress.toolCallId);
    if (call.ended || progress.attempt < call.attempt || progress.seq <= call.seq) return undefined;
    call.attempt = progress.attempt;
    call.seq = progress.seq;
    const { seq, at } = this.last;
    return {
      seq,
      at,
      type: 'tool-progress',
      toolCallId: progress.toolCallId,
      progressSeq: progress.seq,
      value: progress.value,
    };
  }

  private call(toolCallId: string): CallProgress {
    let call = this.calls.get(toolCallId);
    if (!call) this.calls.set(toolCallId, (call = { attempt: 0, seq: 0, ended: false }));
    return call;
  }
}
