// The run's stream (Workflow Streams' wire protocol, src/protocol/stream-wire.ts): its topics, what activities publish
// to it, and the items a client reads. Workflow-safe: types and constants only.
import type { JsonValue } from './json.js';
import type { RunEvent } from './events.js';
import type { StreamState, StreamWireItem } from './stream-wire.js';

/** The topics of a run's stream. Offsets are global across topics: one offset orders every item of the run. */
/** The failure type of a poll the run refused because enough watchers already wait (poll again in a moment). */
export const STREAM_BUSY_FAILURE = 'DurableAgent.StreamBusy';

export const RUN_STREAM_TOPICS = {
  /** Every {@link RunEvent}, published by the workflow, in `seq` order. */
  events: 'events',
  /** Streaming tools' yields, published by the tool's own activity attempt and checked by the workflow. */
  progress: 'progress',
  /**
   * Model output as it is written (protocol 4): {@link StreamedDeltas} batches published by the
   * step's own `generate` attempt and checked by the workflow, and a `reset-step` whenever a new attempt of a step
   * starts publishing, so a client drops what a failed attempt wrote.
   */
  deltas: 'deltas',
} as const;

/**
 * How often (ms) a streaming `generate` attempt publishes its pieces after the first, which goes out at once. Each
 * publish is a signal (a history event, an action on Temporal Cloud) and a workflow task: see docs/performance.md.
 */
export const DEFAULT_DELTA_INTERVAL_MS = 100;
/**
 * The memo key under which a run says when a watcher last polled its stream (protocol 4): an ISO
 * time, renewed at most every {@link WATCHED_RENEW_MS} while polls keep coming. A streaming `generate` attempt reads
 * it from Temporal (no worker is asked) and publishes its pieces only while someone watches.
 */
export const WATCHED_MEMO_KEY = 'durable-agent.watched';

/**
 * The run's memo key naming its live stream on Redis (issue 32): the run id of its first execution, the stream's id
 * across continue-as-new. Written by a run whose worker publishes to Redis; absent: the run's stream is its own
 * Workflow Streams log.
 */
export const LIVE_MEMO_KEY = 'durable-agent.live';
/** How often a watched run renews its {@link WATCHED_MEMO_KEY} at most (one memo change, one history event). */
export const WATCHED_RENEW_MS = 10_000;
/** A run counts as watched for this long after the time its memo names (twice the renewal, plus clock skew). */
export const WATCHED_FRESH_MS = 25_000;
/** Bounds of a batch interval (agent option or per-run override). */
export const MIN_DELTA_INTERVAL_MS = 20;
export const MAX_DELTA_INTERVAL_MS = 5_000;
/** UTF-8 bytes of one {@link DeltaPublish}'s pieces' text at most: a publisher splits above it, the run drops above it. */
export const MAX_DELTA_PUBLISH_BYTES = 32_768;
/** Pieces one {@link DeltaPublish} carries at most (a publisher starts another one above it). */
export const MAX_DELTA_PARTS = 128;
/** Characters of a piece's `id` or `toolName` at most (a publish with a longer one is dropped). */
export const MAX_DELTA_ID_CHARS = 256;

/** What a model delta adds to: the step's text, its reasoning, or the input of one tool call. */
export type DeltaKind = 'text' | 'reasoning' | 'tool-input';

/**
 * One piece of model output, in the AI SDK's own stream part shape (`TextStreamPart` of `ai`): a text, reasoning or
 * tool input part starts (`*-start`) and grows (`*-delta`). `id` is the provider's part id for text and reasoning,
 * the tool call id for tool input; a part's pieces in one step and attempt go together in offset order. No `*-end`
 * goes on the wire (it would cost the run one more publish per step): the step's recorded message (its `text` and
 * `tool-call` events) ends its parts, as readers have to handle anyway for an attempt that died mid-part.
 */
export type DeltaPart =
  | { type: 'text-start' | 'reasoning-start'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; text: string }
  | { type: 'tool-input-start'; id: string; toolName: string }
  | { type: 'tool-input-delta'; id: string; delta: string };

/**
 * An item of the `deltas` topic. `deltas`: pieces of model output of one step's attempt, in order (AI SDK stream
 * parts). `reset-step`:
 * attempt `attempt` of `step` starts over; every piece of that step from an earlier attempt is void. The step's
 * final message (its `text` and `tool-call` events on the `events` topic) supersedes its pieces.
 */
export type StreamedDeltas =
  | { type: 'deltas'; step: number; attempt: number; parts: DeltaPart[] }
  | { type: 'reset-step'; step: number; attempt: number };

/**
 * What a `generate` activity attempt publishes on the `deltas` topic: its pieces and the token the workflow gave
 * the step in its `generate` input. The workflow drops a publish whose token is not that of the running step.
 */
export interface DeltaPublish {
  token: string;
  step: number;
  attempt: number;
  parts: DeltaPart[];
}

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
  /** Base64 `Payload` protos, as a poll returns them. */
  items: StreamWireItem[];
  /** Offset of the first item the run still holds (older ones were truncated). */
  baseOffset: number;
  /** Offset after the last item the run holds (more to read while it is above the last returned item's). */
  nextOffset: number;
}

/** Carried over continue-as-new by a streamed run (see `RunContinuation.stream`). */
export type RunStreamContinuation = StreamState;

/** Type guard: a run event as decoded from the `events` topic. */
export function isRunEvent(value: unknown): value is RunEvent {
  return typeof value === 'object' && value !== null && typeof (value as RunEvent).seq === 'number';
}
