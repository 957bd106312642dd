// Where a durable run's time goes, read from its history's event times: waiting for and running workflow tasks,
// waiting for and running activities (model calls, tool calls, the rest). What is left of the client-measured
// run time is the client's own round trips (start, result long poll).
import type { Client } from '@temporalio/client';

/** Milliseconds a run spent in each phase (summed over the run). */
export interface PhaseTimes {
  workflowTaskWait: number;
  workflowTaskRun: number;
  activityWait: number;
  modelActivityRun: number;
  toolActivityRun: number;
  otherActivityRun: number;
  /** Workflow tasks and activities the run had. */
  workflowTasks: number;
  activities: number;
}

const MODEL_ACTIVITIES = new Set(['generate', 'invokeModel']);
const TOOL_ACTIVITIES = new Set(['executeTool', 'lookup']);

/** The phase times of one finished workflow execution (the latest run of `workflowId`). */
export async function phaseTimes(client: Client, workflowId: string): Promise<PhaseTimes> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const times = new Map<number, number>();
  const activityTypes = new Map<number, string>();
  const phases: PhaseTimes = {
    workflowTaskWait: 0,
    workflowTaskRun: 0,
    activityWait: 0,
    modelActivityRun: 0,
    toolActivityRun: 0,
    otherActivityRun: 0,
    workflowTasks: 0,
    activities: 0,
  };
  const since = (eventId: unknown, now: number) => now - (times.get(Number(eventId)) ?? now);
  for (const event of history.events ?? []) {
    const now = Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
    times.set(Number(event.eventId), now);
    if (event.workflowTaskStartedEventAttributes) {
      phases.workflowTaskWait += since(event.workflowTaskStartedEventAttributes.scheduledEventId, now);
      phases.workflowTasks++;
    } else if (event.workflowTaskCompletedEventAttributes) {
      phases.workflowTaskRun += since(event.workflowTaskCompletedEventAttributes.startedEventId, now);
    } else if (event.activityTaskScheduledEventAttributes) {
      activityTypes.set(Number(event.eventId), event.activityTaskScheduledEventAttributes.activityType?.name ?? '');
      phases.activities++;
    } else if (event.activityTaskStartedEventAttributes) {
      phases.activityWait += since(event.activityTaskStartedEventAttributes.scheduledEventId, now);
    } else if (event.activityTaskCompletedEventAttributes) {
      const { scheduledEventId, startedEventId } = event.activityTaskCompletedEventAttributes;
      const type = activityTypes.get(Number(scheduledEventId)) ?? '';
      const key = MODEL_ACTIVITIES.has(type)
        ? 'modelActivityRun'
        : TOOL_ACTIVITIES.has(type)
          ? 'toolActivityRun'
          : 'otherActivityRun';
      phases[key] += since(startedEventId, now);
    }
  }
  return phases;
}
