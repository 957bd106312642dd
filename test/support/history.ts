// Assertions on recorded workflow histories: what the workflow scheduled is the durable truth of what it did.
import type { WorkflowHandle } from '@temporalio/client';

/** A workflow execution's history, as returned by `handle.fetchHistory()`. */
export type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** The activity type of every `ACTIVITY_TASK_SCHEDULED` event, in history order. */
export function scheduledActivities(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    return scheduled ? [scheduled.activityType?.name ?? ''] : [];
  });
}

/** How many `ACTIVITY_TASK_SCHEDULED` events the history holds, optionally only for one activity type. */
export function countScheduledActivities(history: History, activityType?: string): number {
  const types = scheduledActivities(history);
  return activityType === undefined ? types.length : types.filter((type) => type === activityType).length;
}
