import { Context } from '@temporalio/activity';
import { LiveRunPublisher } from '../src/live/live-run-publisher.js';
import { RUN_STREAM_TOPICS, type RunEvent } from '../src/protocol/index.js';
import type { ActivityDependencies } from '../src/runtime/dependencies.js';

/** Input of `publishLiveEvents`: the run's live stream (its first execution's run id) and the events, in order. */
export interface PublishLiveEventsInput {
  firstRunId: string;
  events: RunEvent[];
}

/**
 * A local activity of runs whose live items go to Redis: publishes the events the workflow emitted (approval
 * requested, step finished, run ended, …) on the live stream's `events` topic, in the run's order (the workflow
 * runs one at a time, and the step's model call waits for it before it starts). Never fails: Redis being down is
 * logged and counted (the transport's `failures.publish`), the events are in the run's history and its event log,
 * and watchers fall back to them. A worker without a live stream (a misconfigured deployment) publishes nothing.
 */
export function createPublishLiveEvents(deps: ActivityDependencies) {
  return async function publishLiveEvents(input: PublishLiveEventsInput): Promise<void> {
    if (!deps.live || input.events.length === 0) return;
    const { workflowExecution, attempt } = Context.current().info;
    if (!workflowExecution) return;
    const publisher = new LiveRunPublisher(
      deps.live,
      { workflowId: workflowExecution.workflowId, firstRunId: input.firstRunId },
      attempt,
    );
    await publisher.publish(input.events.map((value) => ({ topic: RUN_STREAM_TOPICS.events, value })));
  };
}
