import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, type RunContextData, type RunRef, type TranscriptMessage } from '../src/protocol/index.js';
import { transcriptQuery } from '../workflows/messages.js';

interface CachedRun {
  messages: TranscriptMessage[];
  run: RunContextData;
}

/**
 * The worker-side copy of each run's transcript. Activity inputs carry only a run reference and a message
 * count; the messages come from here, and whatever is missing is read once from the run's transcript query
 * (queries are not recorded in history). Transcripts are append-only, so a cached prefix never goes stale.
 */
export class TranscriptCache {
  private readonly runs = new Map<string, CachedRun>();

  constructor(private readonly maxRuns = 500) {}

  /** The first `count` messages of a run and its context. */
  async read(ref: RunRef, count: number): Promise<CachedRun> {
    const key = `${ref.workflowId}/${ref.runId}`;
    let cached = this.runs.get(key);
    if (!cached || cached.messages.length < count) {
      const from = cached?.messages.length ?? 0;
      const slice = await queryTranscript(ref, from, count);
      cached = { messages: [...(cached?.messages ?? []), ...slice.messages], run: slice.run };
      if (cached.messages.length < count) {
        throw ApplicationFailure.create({
          type: FailureType.TranscriptUnavailable,
          message: `Run ${ref.workflowId} returned ${cached.messages.length} of ${count} transcript messages.`,
        });
      }
    }
    this.remember(key, cached);
    return { messages: cached.messages.slice(0, count), run: cached.run };
  }

  /** Appends messages this worker produced at position `at`, so the next step needs no query. Idempotent. */
  append(ref: RunRef, at: number, messages: TranscriptMessage[]): void {
    const key = `${ref.workflowId}/${ref.runId}`;
    const cached = this.runs.get(key);
    if (cached && cached.messages.length === at) cached.messages.push(...messages);
  }

  private remember(key: string, value: CachedRun): void {
    // Map iteration order is insertion order: re-inserting marks the run as recently used.
    this.runs.delete(key);
    this.runs.set(key, value);
    if (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
  }
}

async function queryTranscript(ref: RunRef, from: number, to: number) {
  const handle = Context.current().client.workflow.getHandle(ref.workflowId, ref.runId);
  return await handle.query(transcriptQuery, from, to);
}
