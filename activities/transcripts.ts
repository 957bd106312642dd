import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  FailureType,
  type ModelToolOutput,
  type RunContextData,
  type RunRef,
  type TranscriptDelta,
  type TranscriptMessage,
} from '../src/protocol/index.js';
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

  /** Outputs of tool calls this worker executed, until the next model call of their run takes them. */
  private readonly toolOutputs = new Map<string, ModelToolOutput>();

  constructor(private readonly maxRuns = 500) {}

  /** Keeps what the model will see for a tool call this worker executed (see {@link TranscriptDelta}). */
  rememberToolOutput(ref: RunRef, toolCallId: string, output: ModelToolOutput): void {
    this.toolOutputs.set(`${ref.workflowId}/${ref.runId}/${toolCallId}`, output);
    if (this.toolOutputs.size > this.maxRuns * 20) this.toolOutputs.delete(this.toolOutputs.keys().next().value!);
  }

  /**
   * The first `count` messages of a run and its context. `delta` (the previous step's tool message) extends the
   * cached prefix when every result it references was executed here; otherwise the run is queried.
   */
  async read(ref: RunRef, count: number, delta?: TranscriptDelta): Promise<CachedRun> {
    const key = `${ref.workflowId}/${ref.runId}`;
    let cached = this.runs.get(key);
    if (cached && delta && cached.messages.length === delta.at) {
      const message = this.resolve(key, delta);
      if (message) cached.messages.push(message);
    }
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

  /** The delta as a transcript message, or undefined when a referenced output is not on this worker. */
  private resolve(key: string, delta: TranscriptDelta): TranscriptMessage | undefined {
    const content = [];
    for (const part of delta.content) {
      if (part.type === 'tool-result') {
        content.push(part);
        continue;
      }
      const output = this.toolOutputs.get(`${key}/${part.toolCallId}`);
      if (!output) return undefined;
      content.push({ type: 'tool-result' as const, toolCallId: part.toolCallId, toolName: part.toolName, output });
    }
    for (const part of delta.content) this.toolOutputs.delete(`${key}/${part.toolCallId}`);
    return { role: 'tool', content };
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
