// The run's stream (`@temporalio/workflow-streams`): its topics, what activities publish to it, and the items a
// client reads. Workflow-safe: types and constants only.
import type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import type { JsonValue } from './json.js';
import type { RunEvent } from './events.js';

export type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';

/** The topics of a run's stream. Offsets are global across topics: one offset orders every item of the run. */
export const RUN_STREAM_TOPICS = {
  /** Every {@link RunEvent}, published by the workflow, in `seq` order. */
  events: 'events',
  /** Streaming tools' yields, published by the tool's own activity attempt and checked by the workflow. */
  progress: 'progress',
} as const;

/** A streaming tool's yield as the run's stream holds it. */
export interface StreamedProgress {
  toolCallId: string;
  /** Counts from 1 per call; a retried attempt's repeated yields are dropped until they pass the last one shown. */
  seq: number;
  /** A preview of the yielded value. */
  value: JsonValue;
  /** The activity attempt that published it. */
  attempt: number;
}

/**
 * What a tool activity publishes on the `progress` topic: the yield and the token the workflow gave this call in
 * its `executeTool` input. The workflow drops a publish whose token is not the one of a running call.
 */
export interface ProgressPublish extends StreamedProgress {
  token: string;
}

/** Items of the run's stream from an offset, for a client reading what a closed run published last. */
export interface RunStreamTail {
  /** Base64 `Payload` protos, as `@temporalio/workflow-streams` puts them on the wire. */
  items: { topic: string; data: string; offset: number }[];
  /** Offset of the first item the run still holds (older ones were truncated). */
  baseOffset: number;
  /** Offset after the last item the run holds (more to read while it is above the last returned item's). */
  nextOffset: number;
}

/** Carried over continue-as-new by a streamed run (see `RunContinuation.stream`). */
export type RunStreamContinuation = WorkflowStreamState;

/** Type guard: a run event as decoded from the `events` topic. */
export function isRunEvent(value: unknown): value is RunEvent {
  return typeof value === 'object' && value !== null && typeof (value as RunEvent).seq === 'number';
}
