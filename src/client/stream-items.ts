// The raw items of a run's stream log (topic, data, offset), as any transport yields them (the run's own Workflow
// Streams log through its poll and tail query; a Redis stream), read into the run stream's parts. Every reader of a
// run's stream (the client's `run.stream()`, and through it the assembler and every projection) starts here.
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { RUN_STREAM_TOPICS, isRunEvent, type StreamedDeltas, type StreamedProgress } from '../protocol/index.js';
import type { RunStreamPart } from './run-stream.js';

/** One item of a run's stream log: its topic, its data (a Temporal payload of JSON), its offset in the stream. */
export interface RawStreamItem {
  topic: string;
  data: Payload;
  offset: number;
}

/**
 * Reads a run's raw stream items, in offset order, into parts. Offsets are dense over the whole stream (a reader
 * filters no topic), so a jump past the next expected offset is items the log dropped: a `truncated` part says so.
 * Items before the expected offset (a transport that repeats itself) are skipped; items of unknown topics are
 * counted but make no part.
 */
export class StreamItemReader {
  /** The offset the next item should have. */
  constructor(public next = 0) {}

  /** The parts `item` makes (a `truncated` part first when items were skipped). */
  read(item: RawStreamItem): RunStreamPart[] {
    const { offset } = item;
    if (offset < this.next) return [];
    const out: RunStreamPart[] = [];
    if (offset > this.next) out.push({ type: 'truncated', offset, missedFrom: this.next });
    this.next = offset + 1;
    const value = defaultPayloadConverter.fromPayload<unknown>(item.data);
    if (item.topic === RUN_STREAM_TOPICS.events && isRunEvent(value)) {
      out.push({ type: 'event', offset, event: value });
    } else if (item.topic === RUN_STREAM_TOPICS.progress) {
      out.push({ type: 'progress', offset, progress: value as StreamedProgress });
    } else if (item.topic === RUN_STREAM_TOPICS.deltas) {
      out.push({ type: 'deltas', offset, deltas: value as StreamedDeltas });
    }
    return out;
  }
}

/** The parts of a run's raw stream items read from offset `from` (see {@link StreamItemReader}). */
export async function* partsOfItems(items: AsyncIterable<RawStreamItem>, from = 0): AsyncGenerator<RunStreamPart> {
  const reader = new StreamItemReader(from);
  for await (const item of items) yield* reader.read(item);
}
