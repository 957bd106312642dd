import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  FailureType,
  readTranscript,
  type ToolResultOutput,
  type RunContextData,
  type RunRef,
  type TranscriptDelta,
  type TranscriptMessage,
  type TranscriptSlice,
  type TranscriptMark,
} from '../src/protocol/index.js';
import { transcriptQuery } from '../workflows/messages.js';

interface CachedRun {
  key: string;
  messages: TranscriptMessage[];
  run: RunContextData;
  /** Which model response (by its `responseId`) this worker cached at each position. */
  responses: Map<number, string>;
  /** Approximate size, for the cache's byte budget. */
  bytes: number;
}

interface CachedOutput {
  outputId: string;
  output: ToolResultOutput;
  storedAt: number;
}

/** What a read needs besides the run and the count. */
export interface TranscriptReadHints {
  /** The previous step's tool message (see {@link TranscriptDelta}). */
  delta?: TranscriptDelta;
  /** The latest model response the workflow recorded: a cached copy of another attempt's response is dropped. */
  mark?: TranscriptMark;
}

/** Reads one page of a run's transcript; by default the run's transcript query through the activity's client. */
export type TranscriptQueryFn = (ref: RunRef, from: number, to: number, fromPart: number) => Promise<TranscriptSlice>;

/** Limits of the worker's transcript cache. */
export interface TranscriptCacheLimits {
  maxRuns?: number;
  maxBytes?: number;
  /** Unclaimed tool outputs are dropped after this long (the run ended, or its next step ran elsewhere). */
  toolOutputTtlMs?: number;
}

/**
 * The worker-side copy of each run's transcript. Activity inputs carry only a run reference and a message count;
 * the messages come from here, and whatever is missing is read from the run's transcript query (queries are not
 * recorded in history). A cached prefix is trusted only while it matches what the run recorded: every model
 * response and tool output carries an id that the workflow echoes back, so a copy made by an attempt whose result
 * was not the one recorded is dropped and read again.
 */
export class TranscriptCache {
  private readonly runs = new Map<string, CachedRun>();
  private readonly toolOutputs = new Map<string, CachedOutput>();
  private totalBytes = 0;
  private readonly maxRuns: number;
  private readonly maxBytes: number;
  private readonly toolOutputTtlMs: number;

  constructor(
    limits: TranscriptCacheLimits = {},
    private readonly query: TranscriptQueryFn = queryRun,
  ) {
    this.maxRuns = limits.maxRuns ?? 500;
    this.maxBytes = limits.maxBytes ?? 256 * 1024 * 1024;
    this.toolOutputTtlMs = limits.toolOutputTtlMs ?? 15 * 60_000;
  }

  /** Keeps what the model will see for a tool call this worker executed, under the result's `outputId`. */
  rememberToolOutput(ref: RunRef, toolCallId: string, outputId: string, output: ToolResultOutput): void {
    const now = Date.now();
    // Oldest first: drop what expired, and keep the count bounded.
    for (const [key, entry] of this.toolOutputs) {
      if (now - entry.storedAt < this.toolOutputTtlMs && this.toolOutputs.size < this.maxRuns * 20) break;
      this.toolOutputs.delete(key);
    }
    this.toolOutputs.set(`${runKey(ref)}/${toolCallId}`, { outputId, output, storedAt: now });
  }

  /** The first `count` messages of a run and its context. */
  async read(
    ref: RunRef,
    count: number,
    hints: TranscriptReadHints = {},
  ): Promise<{ messages: TranscriptMessage[]; run: RunContextData }> {
    const key = runKey(ref);
    let cached = this.runs.get(key);
    // Only copies this worker appended can be stale (an attempt whose result was not the one recorded); what came
    // from the run's query is the record itself.
    const local = hints.mark ? cached?.responses.get(hints.mark.at) : undefined;
    if (cached && hints.mark && local !== undefined && local !== hints.mark.responseId) {
      this.truncate(cached, hints.mark.at);
    }
    if (cached && hints.delta && cached.messages.length === hints.delta.at) {
      const message = this.resolve(key, hints.delta);
      if (message) this.push(cached, [message]);
    }
    if (!cached || cached.messages.length < count) {
      cached ??= { key, messages: [], run: undefined as unknown as RunContextData, responses: new Map(), bytes: 0 };
      // Page through the query: each answer is bounded in size.
      const page = await readTranscript(
        (from, to, fromPart) => this.query(ref, from, to ?? count, fromPart),
        cached.messages.length,
        count,
      );
      if (page.run) cached.run = page.run;
      const answered = cached.run !== undefined;
      this.push(cached, page.messages);
      if (cached.messages.length < count || !answered) {
        throw ApplicationFailure.create({
          type: FailureType.TranscriptUnavailable,
          message: `Run ${ref.workflowId} returned ${cached.messages.length} of ${count} transcript messages.`,
        });
      }
    }
    this.remember(key, cached);
    return { messages: cached.messages.slice(0, count), run: cached.run };
  }

  /**
   * Records the model response this worker produced at position `at` (replacing whatever an earlier attempt left
   * there), so the next step needs no query.
   */
  append(ref: RunRef, at: number, messages: TranscriptMessage[], responseId: string): void {
    const cached = this.runs.get(runKey(ref));
    if (!cached || cached.messages.length < at) return;
    this.truncate(cached, at);
    this.push(cached, messages);
    cached.responses.set(at, responseId);
  }

  /** The delta as a transcript message, or undefined when a referenced output is not on this worker. */
  private resolve(key: string, delta: TranscriptDelta): TranscriptMessage | undefined {
    const content = [];
    for (const part of delta.content) {
      if (part.type === 'tool-result') {
        content.push(part);
        continue;
      }
      // A large result the workflow made itself is only in the run: read the message through the query.
      if (part.type === 'tool-result-in-run') return undefined;
      const entry = this.toolOutputs.get(`${key}/${part.toolCallId}`);
      if (!entry || entry.outputId !== part.outputId) return undefined;
      content.push({
        type: 'tool-result' as const,
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: entry.output,
      });
    }
    for (const part of delta.content) this.toolOutputs.delete(`${key}/${part.toolCallId}`);
    return { role: 'tool', content };
  }

  private push(cached: CachedRun, messages: TranscriptMessage[]): void {
    const bytes = JSON.stringify(messages).length;
    cached.messages.push(...messages);
    cached.bytes += bytes;
    if (this.runs.get(cached.key) === cached) this.totalBytes += bytes;
  }

  private truncate(cached: CachedRun, at: number): void {
    if (cached.messages.length <= at) return;
    const removed = cached.messages.splice(at);
    const bytes = JSON.stringify(removed).length;
    cached.bytes -= bytes;
    if (this.runs.get(cached.key) === cached) this.totalBytes -= bytes;
    for (const position of [...cached.responses.keys()]) if (position >= at) cached.responses.delete(position);
  }

  private remember(key: string, value: CachedRun): void {
    // Map iteration order is insertion order: re-inserting marks the run as recently used.
    const previous = this.runs.get(key);
    if (previous) this.totalBytes -= previous.bytes;
    this.runs.delete(key);
    this.runs.set(key, value);
    this.totalBytes += value.bytes;
    for (const [oldest, run] of this.runs) {
      if (this.runs.size <= this.maxRuns && this.totalBytes <= this.maxBytes) break;
      if (oldest === key) break;
      this.runs.delete(oldest);
      this.totalBytes -= run.bytes;
    }
  }
}

function runKey(ref: RunRef): string {
  return `${ref.workflowId}/${ref.runId}`;
}

async function queryRun(ref: RunRef, from: number, to: number, fromPart: number): Promise<TranscriptSlice> {
  const handle = Context.current().client.workflow.getHandle(ref.workflowId, ref.runId);
  return await handle.query(transcriptQuery, from, to, fromPart);
}
