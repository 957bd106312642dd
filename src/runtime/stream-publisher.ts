import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowNotFoundError, defaultPayloadConverter } from '@temporalio/common';
import {
  STREAM_PUBLISH_SIGNAL,
  encodeStreamData,
  type StreamPublishEntry,
  type StreamPublishInput,
} from '../protocol/index.js';

/**
 * What publishes an activity's items to its run's stream, in order: the run's Workflow Streams log
 * ({@link StreamPublisher}) or its live stream on Redis (`LiveRunPublisher`).
 */
export interface RunItemPublisher {
  publish(entries: readonly { topic: string; value: unknown }[]): Promise<void>;
  drain(): Promise<void>;
}

/** First pause before a failed publish is sent again; it doubles up to {@link MAX_RETRY_PAUSE_MS}. */
const FIRST_RETRY_PAUSE_MS = 100;
const MAX_RETRY_PAUSE_MS = 1_000;

/**
 * Publishes items to the run stream of the activity's own run, one signal per batch, in order. Each batch carries
 * this publisher's id and the next sequence; a batch whose signal could not be confirmed is sent again with the
 * same sequence (the run drops a sequence it has), for at most `retryMs`, then given up. What a run's activities
 * publish is for people watching, never the activity's fate: callers log a failure and go on.
 */
export class StreamPublisher implements RunItemPublisher {
  private readonly handle: WorkflowHandle;
  private readonly publisherId = randomBytes(8).toString('hex');
  private sequence = 0;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly retryMs: number) {
    const { client, info } = Context.current();
    const run = info.workflowExecution;
    if (!run) throw new Error('A run stream publisher works in activities of a run only; this one has no workflow.');
    this.handle = client.workflow.getHandle(run.workflowId, run.runId);
  }

  /** Sends one batch after those before it; resolves once the run has it, rejects when it was given up. */
  publish(entries: readonly { topic: string; value: unknown }[]): Promise<void> {
    const items: StreamPublishEntry[] = entries.map(({ topic, value }) => ({
      topic,
      // The default converter, which the workflow decodes with: a client's custom converter is not involved (the
      // codec still runs on the signal that carries the batch).
      data: encodeStreamData(defaultPayloadConverter.toPayload(value)),
    }));
    const sent = this.chain.then(() => this.send({ items, publisher_id: this.publisherId, sequence: ++this.sequence }));
    this.chain = sent.catch(() => undefined);
    return sent;
  }

  /** Resolves when every batch handed over so far was sent or given up. */
  async drain(): Promise<void> {
    await this.chain;
  }

  private async send(input: StreamPublishInput): Promise<void> {
    const deadline = Date.now() + this.retryMs;
    for (let pause = FIRST_RETRY_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS)) {
      try {
        await this.handle.signal<[StreamPublishInput]>(STREAM_PUBLISH_SIGNAL, input);
        return;
      } catch (err) {
        // The run has closed (or continued as new): nobody takes this attempt's items any more.
        if (err instanceof WorkflowNotFoundError || Date.now() + pause > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}
