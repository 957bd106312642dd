import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { LRUCache } from 'lru-cache';
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
} from '../protocol/index.js';
import { transcriptQuery } from '../protocol/run-messages.js';

/** A run's cached transcript. Entries are replaced, never mutated, so the cache always knows their size. */
interface CachedRun {
  messages: readonly TranscriptMessage[];
  run: RunContextData | undefined;
  /** Which model response (by its `responseId`) this worker cached at each position. */
  responses: ReadonlyMap<number, string>;
  /** UTF-8 bytes of `messages` as JSON, for the cache's byte budget. */
  bytes: number;
}

interface CachedOutput {
  outputId: string;
  output: ToolResultOutput;
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
  /** Runs kept. Default 500. */
  maxRuns?: number;
  /** UTF-8 bytes of cached messages, over all runs; a run larger than this is not cached. Default 256 MiB. */
  maxBytes?: number;
  /** Unclaimed tool outputs are dropped after this long (the run ended, or its next step ran elsewhere). */
  toolOutputTtlMs?: number;
  /** UTF-8 bytes of unclaimed tool outputs kept. Default 64 MiB. */
  toolOutputMaxBytes?: number;
}

/**
 * The worker-side copy of each run's transcript. Activity inputs carry only a run reference and a message count;
 * the messages come from here, and whatever is missing is read from the run's transcript query (queries are not
 * recorded in history). A cached prefix is trusted only while it matches what the run recorded: every model
 * response and tool output carries an id that the workflow echoes back, so a copy made by an attempt whose result
 * was not the one recorded is dropped and read again.
 */
export class TranscriptCache {
  // Least recently used runs go first, when there are too many or their messages take too many bytes.
  private readonly runs: LRUCache<string, CachedRun>;
  private readonly toolOutputs: LRUCache<string, CachedOutput>;

  constructor(
    limits: TranscriptCacheLimits = {},
    private readonly query: TranscriptQueryFn = queryRun,
  ) {
    const maxRuns = limits.maxRuns ?? 500;
    this.runs = new LRUCache({ max: maxRuns, maxSize: limits.maxBytes ?? 256 * 1024 * 1024 });
    // Bounded by bytes only: lru-cache preallocates `max` slots and refills them all whenever the cache empties, which
    // this one does at every step (a claimed output is deleted).
    this.toolOutputs = new LRUCache({
      maxSize: limits.toolOutputMaxBytes ?? 64 * 1024 * 1024,
      ttl: limits.toolOutputTtlMs ?? 15 * 60_000,
    });
  }

  /** Keeps what the model will see for a tool call this worker executed, under the result's `outputId`. */
  rememberToolOutput(ref: RunRef, toolCallId: string, outputId: string, output: ToolResultOutput): void {
    this.toolOutputs.set(`${runKey(ref)}/${toolCallId}`, { outputId, output }, { size: sizeOf(jsonBytes(output)) });
  }

  /**
   * Caches a run's first messages (its system prompt and input, which `describeAgent` knows), under `seedId`: the
   * run's first model call echoes the recorded description's id in its mark, so a copy from an attempt whose
   * description was not the one recorded is dropped.
   */
  seed(ref: RunRef, messages: TranscriptMessage[], run: RunContextData, seedId: string): void {
    const entry = appended({ messages: [], run, responses: new Map([[0, seedId]]), bytes: 0 }, messages);
    this.store(runKey(ref), entry);
  }

  /**
   * Drops a run that waits for a person (an approval, a client-side result): it may wait for days, and whatever its
   * next activity needs it reads from the run again.
   */
  forget(ref: RunRef): void {
    this.runs.delete(runKey(ref));
  }

  /** The first `count` messages of a run and its context. */
  async read(
    ref: RunRef,
    count: number,
    hints: TranscriptReadHints = {},
  ): Promise<{ messages: TranscriptMessage[]; run: RunContextData }> {
    const key = runKey(ref);
    let entry: CachedRun = this.runs.get(key) ?? { messages: [], run: undefined, responses: new Map(), bytes: 0 };
    // Only copies this worker appended can be stale (an attempt whose result was not the one recorded); what came
    // from the run's query is the record itself.
    const local = hints.mark ? entry.responses.get(hints.mark.at) : undefined;
    if (hints.mark && local !== undefined && local !== hints.mark.responseId) entry = truncated(entry, hints.mark.at);
    if (hints.delta && entry.run !== undefined && entry.messages.length === hints.delta.at) {
      const message = this.resolve(key, hints.delta);
      if (message) entry = appended(entry, [message]);
    }
    if (entry.run === undefined || entry.messages.length < count) {
      // Page through the query: each answer is bounded in size.
      const page = await readTranscript(
        (from, to, fromPart) => this.query(ref, from, to ?? count, fromPart),
        entry.messages.length,
        count,
      );
      entry = appended({ ...entry, run: page.run ?? entry.run }, page.messages);
      if (entry.messages.length < count || entry.run === undefined) {
        throw ApplicationFailure.create({
          type: FailureType.TranscriptUnavailable,
          message: `Run ${ref.workflowId} returned ${entry.messages.length} of ${count} transcript messages.`,
        });
      }
    }
    this.store(key, entry);
    return { messages: entry.messages.slice(0, count), run: entry.run };
  }

  /**
   * Records the model response this worker produced at position `at` (replacing whatever an earlier attempt left
   * there), so the next step needs no query.
   */
  append(ref: RunRef, at: number, messages: TranscriptMessage[], responseId: string): void {
    const key = runKey(ref);
    const cached = this.runs.get(key);
    if (!cached || cached.messages.length < at) return;
    const entry = appended(truncated(cached, at), messages);
    this.store(key, { ...entry, responses: new Map(entry.responses).set(at, responseId) });
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

  private store(key: string, entry: CachedRun): void {
    // A run larger than the whole budget is not kept (lru-cache refuses it); its next read asks the run again.
    this.runs.set(key, entry, { size: sizeOf(entry.bytes) });
  }
}

/** `entry` with `messages` appended. */
function appended(entry: CachedRun, messages: readonly TranscriptMessage[]): CachedRun {
  if (messages.length === 0) return entry;
  return { ...entry, messages: [...entry.messages, ...messages], bytes: entry.bytes + jsonBytes(messages) };
}

/** `entry` without its messages from position `at` on, and without the responses recorded there. */
function truncated(entry: CachedRun, at: number): CachedRun {
  if (entry.messages.length <= at) return entry;
  const responses = new Map([...entry.responses].filter(([position]) => position < at));
  const bytes = entry.bytes - jsonBytes(entry.messages.slice(at));
  return { ...entry, messages: entry.messages.slice(0, at), responses, bytes };
}

/** UTF-8 bytes of a value's JSON: what it weighs in memory and on the wire, whatever its characters. */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

// lru-cache sizes must be positive integers.
function sizeOf(bytes: number): number {
  return Math.max(1, bytes);
}

function runKey(ref: RunRef): string {
  return `${ref.workflowId}/${ref.runId}`;
}

async function queryRun(ref: RunRef, from: number, to: number, fromPart: number): Promise<TranscriptSlice> {
  const handle = Context.current().client.workflow.getHandle(ref.workflowId, ref.runId);
  return await handle.query(transcriptQuery, from, to, fromPart);
}
