// Reads what a history recorded about activities: each scheduled activity's type, decoded input, options and
// decoded result, and local activity results. For assertions on the durable truth of a run (which activity ran
// which tool, with which options, and what crossed into history).
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { History } from './history.js';

/** One scheduled activity as its history recorded it. */
export interface RecordedActivity {
  type: string;
  input: unknown;
  /** `startToCloseTimeout` as recorded, e.g. `45s`. */
  startToCloseTimeout?: string;
  maximumAttempts?: number;
  /** The decoded result, when the activity completed. */
  result?: unknown;
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

interface JsonEvent {
  eventId: string;
  eventType: string;
  activityTaskScheduledEventAttributes?: {
    activityType?: { name?: string };
    input?: { payloads?: JsonPayload[] };
    startToCloseTimeout?: string;
    retryPolicy?: { maximumAttempts?: number };
  };
  activityTaskCompletedEventAttributes?: { scheduledEventId: string; result?: { payloads?: JsonPayload[] } };
  markerRecordedEventAttributes?: {
    markerName?: string;
    details?: Record<string, { payloads?: JsonPayload[] }>;
  };
}

/** The history as Temporal's JSON (what the replay fixtures hold). */
export function historyJson(history: History): { events: JsonEvent[] } {
  return JSON.parse(historyToJSON(history)) as { events: JsonEvent[] };
}

/** Every scheduled activity, in history order, with its decoded input and (when completed) result. */
export function recordedActivities(history: History): RecordedActivity[] {
  const events = historyJson(history).events;
  const results = new Map<string, unknown>();
  for (const event of events) {
    const done = event.activityTaskCompletedEventAttributes;
    if (done) results.set(String(done.scheduledEventId), decode(done.result?.payloads?.[0]));
  }
  return events.flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!scheduled) return [];
    const activity: RecordedActivity = {
      type: scheduled.activityType?.name ?? '',
      input: decode(scheduled.input?.payloads?.[0]),
    };
    if (scheduled.startToCloseTimeout) activity.startToCloseTimeout = scheduled.startToCloseTimeout;
    if (scheduled.retryPolicy?.maximumAttempts) activity.maximumAttempts = scheduled.retryPolicy.maximumAttempts;
    if (results.has(String(event.eventId))) activity.result = results.get(String(event.eventId));
    return [activity];
  });
}

/** The decoded results of a local activity type (recorded as markers), in history order. */
export function localActivityResults(history: History, type: string): unknown[] {
  return historyJson(history).events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = decode(marker.details?.data?.payloads?.[0]) as { activity_type?: string } | undefined;
    return data?.activity_type === type ? [decode(marker.details?.result?.payloads?.[0])] : [];
  });
}

/** Every payload of the history, decoded (inputs, results, markers, signals). */
export function allPayloads(history: History): unknown[] {
  const found: unknown[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.payloads)) {
      for (const payload of record.payloads as JsonPayload[]) found.push(decode(payload));
      return;
    }
    for (const child of Object.values(record)) walk(child);
  };
  walk(historyJson(history).events);
  return found;
}

/** The longest array of numbers anywhere in a value (an embedding vector would be hundreds long). */
export function longestNumberArray(value: unknown): number {
  if (Array.isArray(value)) {
    const own = value.length > 0 && value.every((x) => typeof x === 'number') ? value.length : 0;
    return Math.max(own, ...value.map(longestNumberArray));
  }
  if (typeof value === 'object' && value !== null) return Math.max(0, ...Object.values(value).map(longestNumberArray));
  return 0;
}

function decode(payload: JsonPayload | undefined): unknown {
  if (!payload?.data) return undefined;
  const text = Buffer.from(payload.data, 'base64').toString('utf8');
  const encoding = payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding, 'base64').toString() : '';
  return encoding === 'json/plain' ? (JSON.parse(text) as unknown) : text;
}
