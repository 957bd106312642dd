// Measures what a run leaves in Temporal's history: every payload's `data` bytes (inputs, results, heartbeat
// details, signals, memo), summed over all events of all executions of the workflow (following continue-as-new).
import type { Client } from '@temporalio/client';

/** What one workflow's history holds. */
export interface HistoryStats {
  /** Executions walked (more than 1 after continue-as-new). */
  executions: number;
  events: number;
  /** Sum of payload `data` bytes over all events. */
  payloadBytes: number;
  /** Payload bytes by event attribute kind, e.g. `activityTaskScheduled`. */
  payloadBytesByKind: Record<string, number>;
  /** Events by attribute kind, e.g. `workflowExecutionSignaled` (the Temporal actions a run cost). */
  eventsByKind: Record<string, number>;
}

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

/** Walks a workflow's history (all executions, newest first back to the first) and sums payload bytes. */
export async function historyStats(client: Client, workflowId: string): Promise<HistoryStats> {
  const stats: HistoryStats = { executions: 0, events: 0, payloadBytes: 0, payloadBytesByKind: {}, eventsByKind: {} };
  let runId: string | undefined;
  for (;;) {
    const history: History = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    stats.executions++;
    for (const event of history.events ?? []) {
      stats.events++;
      for (const [field, attributes] of Object.entries(event)) {
        if (!field.endsWith('EventAttributes') || attributes == null) continue;
        const kind = field.slice(0, -'EventAttributes'.length);
        stats.eventsByKind[kind] = (stats.eventsByKind[kind] ?? 0) + 1;
        const bytes = payloadBytes(attributes);
        if (bytes === 0) continue;
        stats.payloadBytesByKind[kind] = (stats.payloadBytesByKind[kind] ?? 0) + bytes;
        stats.payloadBytes += bytes;
      }
    }
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return stats;
    runId = previous;
  }
}

/** Sum of `data` lengths of every Temporal `Payload` ({ metadata, data }) anywhere inside `value`. */
function payloadBytes(value: unknown): number {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return 0;
  const record = value as Record<string, unknown>;
  if (record.data instanceof Uint8Array && 'metadata' in record) return record.data.byteLength;
  let total = 0;
  for (const child of Object.values(record)) total += payloadBytes(child);
  return total;
}
