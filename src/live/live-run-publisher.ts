import { defaultPayloadConverter } from '@temporalio/common';
import {
  RUN_STREAM_TOPICS,
  encodeStreamData,
  type DeltaPublish,
  type ProgressPublish,
  type StreamedDeltas,
  type StreamedProgress,
} from '../protocol/index.js';
import type { LiveRunRef, LiveStream } from './live-stream.js';
import { logLiveFailure } from './redis-live-stream.js';

/**
 * Publishes one activity attempt's items to its run's live stream (Redis), one batch after the other, in order;
 * the same `publish`/`drain` shape as the Workflow Streams `StreamPublisher`, so the delta publisher and the progress
 * reporter use either. No signal, update or query on the run: a watched step's history is an unwatched one's.
 *
 * What the run does with a publish on Workflow Streams, this does before Redis has it: the run's checks are the
 * key's (only holders of it publish), so items carry no token; the first `deltas` publish of a retried attempt
 * (`attempt` > 1) is preceded by the step's `reset-step`, so readers drop what earlier attempts wrote.
 *
 * A publish that fails (Redis down) is logged, counted by the transport (`failures.publish`) and dropped: the run's
 * history has the answer and readers fall back to it. It never fails the activity.
 */
export class LiveRunPublisher {
  private chain: Promise<void> = Promise.resolve();
  private readonly resetSteps = new Set<number>();

  constructor(
    private readonly live: LiveStream,
    private readonly run: LiveRunRef,
    private readonly attempt: number,
  ) {}

  /** Hands a batch over after those before it; resolves once it was published or given up (never rejects). */
  publish(entries: readonly { topic: string; value: unknown }[]): Promise<void> {
    const items = entries.flatMap(({ topic, value }) => this.streamed(topic, value));
    const sent = this.chain.then(async () => {
      try {
        const wire = items.map(({ topic, value }) => ({
          topic,
          data: encodeStreamData(defaultPayloadConverter.toPayload(value)),
        }));
        await this.live.publish(this.run, this.attempt, wire);
      } catch (error) {
        logLiveFailure('Could not publish to the live stream', this.live.failures.publish, error, {
          workflowId: this.run.workflowId,
          attempt: this.attempt,
        });
      }
    });
    this.chain = sent;
    return sent;
  }

  /** Resolves when every batch handed over so far was published or given up. */
  async drain(): Promise<void> {
    await this.chain;
  }

  /** The items readers get for what an activity hands over: as the run would append them on Workflow Streams. */
  private streamed(topic: string, value: unknown): { topic: string; value: unknown }[] {
    if (topic === RUN_STREAM_TOPICS.deltas && isDeltaPublish(value)) {
      const { step, parts } = value;
      const item: StreamedDeltas = { type: 'deltas', step, attempt: this.attempt, parts };
      if (this.attempt === 1 || this.resetSteps.has(step)) return [{ topic, value: item }];
      this.resetSteps.add(step);
      const reset: StreamedDeltas = { type: 'reset-step', step, attempt: this.attempt };
      return [
        { topic, value: reset },
        { topic, value: item },
      ];
    }
    if (topic === RUN_STREAM_TOPICS.progress && isProgressPublish(value)) {
      const { toolCallId, seq, value: preview } = value;
      const item: StreamedProgress = { toolCallId, seq, value: preview, attempt: this.attempt };
      return [{ topic, value: item }];
    }
    return [{ topic, value }];
  }
}

function isDeltaPublish(value: unknown): value is DeltaPublish {
  return typeof value === 'object' && value !== null && 'parts' in value && 'step' in value;
}

function isProgressPublish(value: unknown): value is ProgressPublish {
  return typeof value === 'object' && value !== null && 'toolCallId' in value && 'seq' in value;
}

/**
 * The publisher of an activity attempt of a run whose live stream is on Redis (`live`: the stream's id, from the
 * activity's input), when the worker has a live stream; undefined otherwise (the run's Workflow Streams log is used).
 * A run on Redis that reaches a worker without one (a deployment whose workers disagree) publishes nothing live.
 */
export function liveRunPublisher(
  deps: { live: LiveStream | undefined },
  live: string | undefined,
  workflowId: string,
  attempt: number,
): LiveRunPublisher | undefined {
  if (typeof live !== 'string' || !deps.live) return undefined;
  return new LiveRunPublisher(deps.live, { workflowId, firstRunId: live }, attempt);
}
