// Where a durable run's time goes, read from its history's event times: waiting for and running workflow tasks,
// waiting for and running activities (model calls, tool calls, the rest), and the fixed cost around the steps (start
// to the first model call, the last tool to the result). What is left of the client-measured run time is the
// client's own round trips (start, result long poll).
import type { Client } from '@temporalio/client';

/** Milliseconds a run spent in each phase (summed over the run). */
export interface PhaseTimes {
  workflowTaskWait: number;
  workflowTaskRun: number;
  activityWait: number;
  modelActivityRun: number;
  toolActivityRun: number;
  otherActivityRun: number;
  /** Workflow tasks and activities (local ones included) the run had. */
  workflowTasks: number;
  activities: number;
  /** Execution started → the first model activity started. */
  startToFirstModel: number;
  /** The last tool finished (activity completed, or local activity recorded) → execution completed. */
  lastToolToEnd: number;
}

const MODEL_ACTIVITIES = new Set(['generate', 'invokeModel']);

/** A history event's time in milliseconds since the epoch. */
export function eventTimeMs(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;
}
const TOOL_ACTIVITIES = new Set(['executeTool', 'lookup', 'tool']);

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
    startToFirstModel: Number.NaN,
    lastToolToEnd: Number.NaN,
  };
  let startedAt = Number.NaN;
  let lastToolAt = Number.NaN;
  const since = (eventId: unknown, now: number) => now - (times.get(Number(eventId)) ?? now);
  for (const event of history.events ?? []) {
    const now = eventTimeMs(event.eventTime);
    times.set(Number(event.eventId), now);
    if (event.workflowExecutionStartedEventAttributes) {
      startedAt = now;
    } else if (event.workflowTaskStartedEventAttributes) {
      phases.workflowTaskWait += since(event.workflowTaskStartedEventAttributes.scheduledEventId, now);
      phases.workflowTasks++;
    } else if (event.workflowTaskCompletedEventAttributes) {
      phases.workflowTaskRun += since(event.workflowTaskCompletedEventAttributes.startedEventId, now);
    } else if (event.activityTaskScheduledEventAttributes) {
      activityTypes.set(Number(event.eventId), event.activityTaskScheduledEventAttributes.activityType?.name ?? '');
      phases.activities++;
    } else if (event.activityTaskStartedEventAttributes) {
      const { scheduledEventId } = event.activityTaskStartedEventAttributes;
      phases.activityWait += since(scheduledEventId, now);
      const type = activityTypes.get(Number(scheduledEventId)) ?? '';
      if (MODEL_ACTIVITIES.has(type) && Number.isNaN(phases.startToFirstModel)) {
        phases.startToFirstModel = now - startedAt;
      }
    } else if (event.activityTaskCompletedEventAttributes) {
      const { scheduledEventId, startedEventId } = event.activityTaskCompletedEventAttributes;
      const type = activityTypes.get(Number(scheduledEventId)) ?? '';
      const key = MODEL_ACTIVITIES.has(type)
        ? 'modelActivityRun'
        : TOOL_ACTIVITIES.has(type)
          ? 'toolActivityRun'
          : 'otherActivityRun';
      phases[key] += since(startedEventId, now);
      if (key === 'toolActivityRun') lastToolAt = now;
    } else if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity') {
      phases.activities++;
      if (TOOL_ACTIVITIES.has(localActivityType(event.markerRecordedEventAttributes) ?? '')) lastToolAt = now;
    } else if (event.workflowExecutionCompletedEventAttributes) {
      phases.lastToolToEnd = now - lastToolAt;
    }
  }
  return phases;
}

/** The activity type a local activity marker records (in its `data` detail, as JSON). */
function localActivityType(marker: {
  details?: Record<string, { payloads?: Array<{ data?: Uint8Array | null }> | null }> | null;
}): string | undefined {
  const data = marker.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    return (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type;
  } catch {
    return undefined;
  }
}
