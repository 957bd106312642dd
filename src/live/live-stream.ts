// The live transport behind a run's stream: where its items (topic, data, offset) travel besides the run's own
// Workflow Streams log. Items are the wire items of src/protocol/stream-wire.ts: `data` is a Temporal `Payload` in
// protobuf binary form, base64-encoded, and offsets are dense and global across topics.

/** Names one run's live stream: its workflow id and the run id of its first execution (it spans continue-as-new). */
export interface LiveRunRef {
  workflowId: string;
  firstRunId: string;
}

/** An entry to publish: a topic and its wire data (base64 of a `Payload`). */
export interface LiveEntry {
  topic: string;
  data: string;
}

/** An entry as read back, verified: with its offset. */
export interface LiveItem extends LiveEntry {
  offset: number;
}

/** What one read returns. */
export interface LiveRead {
  /** Verified items at or after the offset asked for, in offset order, none repeated. */
  items: LiveItem[];
  /** The offset to read from next. */
  next: number;
  /**
   * Set when items `[missedFrom, offset)` are gone (trimmed by retention, or never written because their publish was
   * given up) before this reader read them; `items` go on from `offset`.
   */
  gap?: { missedFrom: number; offset: number };
  /** Entries dropped because they were not the run's own (a bad or missing authentication code, a replayed offset). */
  rejected: number;
}

/** Reads one run's live stream forward. */
export interface LiveReader {
  /**
   * What the stream holds from where this reader is, or, when nothing is there yet, what comes within `blockMs`
   * (0: do not wait). Rejects when the transport cannot be reached (read again to try again).
   */
  read(options?: { blockMs?: number; signal?: AbortSignal }): Promise<LiveRead>;
  /** Releases its connection. */
  close(): void;
}

/** A run's live stream transport: publishing by the run's activities, reading by its watchers. */
export interface LiveStream {
  /**
   * Appends `entries` to the run's stream, in order, after everything published before; resolves with the next
   * offset. `attempt` is the publishing activity's attempt, bound into each entry's authentication code.
   */
  publish(run: LiveRunRef, attempt: number, entries: readonly LiveEntry[]): Promise<number>;
  /** A reader of the run's stream from offset `from` (it remembers where it is between reads). */
  reader(run: LiveRunRef, from: number): LiveReader;
  /** Publishes and reads that failed since this transport was made (each is also logged, the first few at least). */
  readonly failures: { publish: number; read: number };
  /** Closes its connections. */
  close(): Promise<void>;
}
