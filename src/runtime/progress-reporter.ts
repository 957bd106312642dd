import { Context } from '@temporalio/activity';
import { getGlobalLogger } from '../logger.js';
import {
  RUN_STREAM_TOPICS,
  previewOutput,
  type JsonValue,
  type ProgressPublish,
  type RunRef,
  type ToolProgress,
} from '../protocol/index.js';
import { toolProgressSignal } from '../protocol/run-messages.js';
import { StreamPublisher, type RunItemPublisher } from './stream-publisher.js';

/** How long a progress publish is retried before it is given up (progress is for people watching, never the tool's fate). */
const STREAM_RETRY_MS = 10_000;

/**
 * Reports a streaming tool's yields to its run (values shortened to a preview), at most one per interval and always
 * the latest (a trailing send), so `run.state()`, `run.events()` and `run.stream()` show progress without a signal per
 * yield in history. With a `token` (runs with a stream, since 0.4.0) each send is a publish on the run stream's
 * `progress` topic, tagged with the token and this attempt; without one it is the v0.3.0 progress signal.
 * The checkpoint itself is the activity heartbeat; this is only what people watch.
 */
export class ProgressReporter {
  private latest: ToolProgress | undefined;
  private lastSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private readonly startedAt = Date.now();
  private stream: RunItemPublisher | undefined;

  constructor(
    private readonly run: RunRef,
    private readonly toolCallId: string,
    private readonly intervalMs: number,
    private readonly token?: string,
    /** Where the run's live items go when it is not its Workflow Streams log: its live stream on Redis. */
    private readonly publisher?: RunItemPublisher,
  ) {}

  /** Records a yield; sends now or schedules a send at the end of the current interval. */
  report(seq: number, value: JsonValue): void {
    this.latest = { toolCallId: this.toolCallId, seq, value: previewOutput(value) };
    if (this.timer) return;
    const wait = this.lastSentAt + this.currentInterval() - Date.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  /**
   * Each signal is a few history events, so a long stream reports less often as it goes on: every interval for
   * the first minute, every 10 intervals until ten minutes, then every 60 (with 500 ms: 0.5 s, 5 s, 30 s). A
   * two-hour stream then adds a few hundred signals, not tens of thousands.
   */
  private currentInterval(): number {
    const elapsed = Date.now() - this.startedAt;
    if (elapsed < 60_000) return this.intervalMs;
    return elapsed < 600_000 ? this.intervalMs * 10 : this.intervalMs * 60;
  }

  /** Stops reporting: the tool's result supersedes any progress not yet sent. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.latest = undefined;
    await this.sending;
    // Drains what was already handed to the stream (bounded by STREAM_RETRY_MS).
    await this.stream?.drain();
  }

  private flush(): void {
    this.timer = undefined;
    const progress = this.latest;
    if (!progress) return;
    this.latest = undefined;
    this.lastSentAt = Date.now();
    if (this.token !== undefined || this.publisher) {
      this.publish(progress, this.token ?? '');
      return;
    }
    const handle = Context.current().client.workflow.getHandle(this.run.workflowId, this.run.runId);
    this.sending = this.sending
      .then(() => handle.signal(toolProgressSignal, progress))
      // Progress is for people watching; a failed send never fails the tool.
      .catch((err: unknown) => this.failed(err));
  }

  private publish(progress: ToolProgress, token: string): void {
    try {
      // One signal per send (a send is throttled to the interval); a resent one keeps its sequence.
      this.stream ??= this.publisher ?? new StreamPublisher(STREAM_RETRY_MS);
      const item: ProgressPublish = { ...progress, token, attempt: Context.current().info.attempt };
      this.stream
        .publish([{ topic: RUN_STREAM_TOPICS.progress, value: item }])
        .catch((err: unknown) => this.failed(err));
    } catch (err) {
      this.failed(err);
    }
  }

  private failed(err: unknown): void {
    getGlobalLogger().debug('Could not report tool progress', { toolCallId: this.toolCallId, err: String(err) });
  }
}
