// Hostile watchers of a run's stream, speaking its wire protocol directly as any client that can reach Temporal can:
// forged publishes, polls that are started and abandoned (a watcher that went away: Temporal has no way to withdraw
// an update), and reconnect storms. Later features get them for free.
import { Client, WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { chainRunIds } from '../../src/client/history/run-chain.js';
import { temporal } from '@temporalio/proto';
import {
  STREAM_POLL_UPDATE,
  STREAM_PUBLISH_SIGNAL,
  encodeStreamData,
  type StreamPollInput,
  type StreamPollResult,
  type StreamPublishInput,
} from '../../src/protocol/index.js';

/** Publishes `items` to a run's stream as an outsider would: the signal, with values it chose. */
export async function forgePublish(
  handle: WorkflowHandle,
  items: { topic: string; value: unknown }[],
  sender: { publisherId?: string; sequence?: number } = {},
): Promise<void> {
  await handle.signal<[StreamPublishInput]>(STREAM_PUBLISH_SIGNAL, {
    items: items.map(({ topic, value }) => ({
      topic,
      data: encodeStreamData(defaultPayloadConverter.toPayload(value)),
    })),
    publisher_id: sender.publisherId ?? 'forger',
    sequence: sender.sequence ?? 1,
  });
}

/**
 * Starts a poll from `from` in a process of its own (a new `Client` on the same connection) and walks away once the
 * run accepted it; resolves with whether it was accepted. Its outcome is never read.
 */
export async function abandonPoll(client: Client, workflowId: string, from: number): Promise<boolean> {
  const own = new Client({ connection: client.connection, namespace: client.options.namespace });
  try {
    const update = await own.workflow
      .getHandle(workflowId)
      .startUpdate<StreamPollResult, [StreamPollInput]>(STREAM_POLL_UPDATE, {
        args: [{ topics: [], from_offset: from }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
    void update.result().catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a run's histories hold, summed over every execution of its chain (a run whose history grows continues as
 * new): their events' bytes as Temporal stores them, and those of its stream polls.
 */
export async function historyBytes(
  client: Client,
  workflowId: string,
): Promise<{ total: number; polls: number; events: number; pollCount: number; executions: number }> {
  const first = (await client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.firstRunId;
  const runIds = await chainRunIds(client.workflow, workflowId, first!);
  const sum = { total: 0, polls: 0, events: 0, pollCount: 0, executions: runIds.length };
  for (const runId of runIds) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const pollIds = new Set<string>();
    for (const event of history.events ?? []) {
      const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
      const completed = event.workflowExecutionUpdateCompletedEventAttributes;
      const bytes = temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
      if (accepted?.acceptedRequest?.input?.name === STREAM_POLL_UPDATE) {
        pollIds.add(accepted.acceptedRequest.meta?.updateId ?? '');
        sum.polls += bytes;
        sum.pollCount++;
      } else if (completed && pollIds.has(completed.meta?.updateId ?? '')) {
        sum.polls += bytes;
      }
    }
    sum.total += temporal.api.history.v1.History.encode(history).finish().length;
    sum.events += history.events?.length ?? 0;
  }
  return sum;
}
