import { Context } from '@temporalio/activity';
import { getGlobalLogger } from '../../logger.js';
import { previewOutput, type JsonValue, type RunRef, type ToolProgress } from '../../protocol/index.js';
import { toolProgressSignal } from '../../protocol/run-messages.js';

/**
 * Reports a streaming tool's yields to its run as signals (values shortened to a preview), at most one per interval
 * and always the latest (a trailing send), so `run.state()` and `run.events()` show progress without a signal per yield in history.
 * The checkpoint itself is the activity heartbeat; this is only what people watch.
 */
export class ProgressReporter {
  private latest: ToolProgress | undefined;
  private lastSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private readonly startedAt = Date.now();

  constructor(
    private readonly run: RunRef,
    private readonly toolCallId: string,
    private readonly intervalMs: number,
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
  }

  private flush(): void {
    this.timer = undefined;
    const progress = this.latest;
    if (!progress) return;
    this.latest = undefined;
    this.lastSentAt = Date.now();
    const handle = Context.current().client.workflow.getHandle(this.run.workflowId, this.run.runId);
    this.sending = this.sending
      .then(() => handle.signal(toolProgressSignal, progress))
      .catch((err: unknown) => {
        // Progress is for people watching; a failed send never fails the tool.
        getGlobalLogger().debug('Could not report tool progress', { toolCallId: this.toolCallId, err: String(err) });
      });
  }
}
