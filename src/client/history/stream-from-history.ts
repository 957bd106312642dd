// What a client reads of a run's stream from Temporal alone, with no worker: whether the run has one (its first
// execution's patch marker), and the end of a finished run's stream (its final record).
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowClient } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { RUN_STREAM_PATCH, isFinalStreamRecord, type FinalRunRecord, type RunEvent } from '../../protocol/index.js';

/** Events of the first execution read to find its first workflow task's patch markers. */
const FIRST_TASK_EVENTS = 40;

/**
 * Whether the run has a stream, from its first execution's history: its first workflow task records the
 * `run-stream` patch marker when it does. Undefined when the history cannot tell (the first execution is gone, or
 * its first task is not complete yet): ask the run.
 */
export async function streamPatchInHistory(
  client: WorkflowClient,
  workflowId: string,
  /** The run's first execution, when the caller knows it (a pinned run); else the workflow id's latest chain's. */
  knownFirstRunId?: string,
  /** How long to wait for a new run's first task to complete (at most about 15 s). */
  waitMs = Number.POSITIVE_INFINITY,
): Promise<boolean | undefined> {
  const deadline = Date.now() + waitMs;
  try {
    let firstRunId = knownFirstRunId;
    if (!firstRunId) {
      const described = await client.workflowService.describeWorkflowExecution({
        namespace: client.options.namespace,
        execution: { workflowId },
      });
      const info = described.workflowExecutionInfo;
      firstRunId = info?.firstRunId || info?.execution?.runId || undefined;
    }
    if (!firstRunId) return undefined;
    // A run just started may not have completed its first task yet: wait for it a little (watchers usually start
    // right after the run), rather than ask the run while its first task is in flight.
    for (let attempt = 0; attempt < FIRST_TASK_READS; attempt++) {
      if (attempt > 0) {
        const pause = Math.min(FIRST_TASK_WAIT_MS * attempt, 500, deadline - Date.now());
        if (pause <= 0) break;
        await delay(pause);
      }
      const page = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId: firstRunId },
        maximumPageSize: FIRST_TASK_EVENTS,
      });
      const found = patchInFirstTask(page.history?.events ?? []);
      if (found !== 'incomplete') return found;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads of the first execution's history while its first task is not complete yet (a busy worker may take seconds
 * to run it), and the first pause between them, growing to 500 ms: about 15 s in all.
 */
const FIRST_TASK_READS = 40;
const FIRST_TASK_WAIT_MS = 25;

/** Whether the first task of these events (a history's first page) recorded the stream's patch marker. */
function patchInFirstTask(events: temporal.api.history.v1.IHistoryEvent[]): boolean | 'incomplete' {
  let completedTasks = 0;
  for (const event of events) {
    if (event.workflowTaskCompletedEventAttributes && ++completedTasks === 2) return false;
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') continue;
    const payload = marker.details?.['patch-data']?.payloads?.[0];
    // Core writes the marker's data with the default converter, whatever the client's (no codec runs on it).
    const data = payload ? defaultPayloadConverter.fromPayload<{ id?: unknown }>(payload) : undefined;
    if (data?.id === RUN_STREAM_PATCH) return true;
  }
  // The first task's commands were all read and none was the marker; or the task is not complete yet.
  return completedTasks === 1 && events.length < FIRST_TASK_EVENTS ? false : 'incomplete';
}

/** One recorded event of a finished run with its stream offset, or the gap before the record's first known one. */
export type RecordedStreamPart =
  | { type: 'event'; offset: number; event: RunEvent }
  | { type: 'truncated'; offset: number; missedFrom: number };

/**
 * The end of a finished run's stream from `from`, as its final record holds it: the events at or after `from`, in
 * order. What else lay there (model deltas, tool progress) belongs to steps the events close. When the record may
 * lack events from there (the oldest were dropped to bound it, or carried over from before the stream's carried
 * log), a `truncated` part says which offsets were not read. Undefined when the record has no stream section.
 */
export function recordedStreamFrom(record: FinalRunRecord, from: number): RecordedStreamPart[] | undefined {
  const stream = record.stream;
  if (!isFinalStreamRecord(stream, record.events)) return undefined;
  const parts: RecordedStreamPart[] = [];
  const known = record.events.flatMap((event, i) => {
    const offset = stream.eventOffsets[i]!;
    return offset >= 0 ? [{ event, offset }] : [];
  });
  // Events the record lacks are older than every event it kept with an offset: only a reader from before the
  // first of those may have missed some.
  const incomplete = record.truncated > 0 || record.firstSeq > 1 || known.length < record.events.length;
  const firstKnown = known[0]?.offset ?? stream.nextOffset;
  if (incomplete && from < firstKnown) parts.push({ type: 'truncated', offset: firstKnown, missedFrom: from });
  for (const entry of known) if (entry.offset >= from) parts.push({ type: 'event', ...entry });
  return parts;
}
