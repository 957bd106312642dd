// The worker's transcript cache: it serves what it has, asks the run only for what it lacks, extends itself from
// the previous step's delta, and never trusts a copy made by an attempt whose result was not the recorded one.
import { describe, expect, it } from 'vitest';
import { TranscriptCache, type TranscriptQueryFn } from '../../src/runtime/transcript-cache.js';
import type { ToolResultOutput, RunRef, TranscriptMessage } from '../../src/protocol/index.js';

const ref: RunRef = { workflowId: 'wf', runId: 'r1' };
const run = { userId: 'u', context: {} };

/** A fake run: its transcript, and every query the cache makes. */
function fakeRun(transcript: TranscriptMessage[]) {
  const queries: [number, number][] = [];
  const query: TranscriptQueryFn = async (_ref, from, to) => {
    queries.push([from, to]);
    return { runId: 'r1', from, total: transcript.length, messages: transcript.slice(from, to), run };
  };
  return { queries, query };
}

const user: TranscriptMessage = { role: 'user', content: 'hi' };
const assistant = (text: string): TranscriptMessage => ({ role: 'assistant', content: text });
const output = (value: string): ToolResultOutput => ({ type: 'text', value });
const toolMessage = (value: string): TranscriptMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 't', output: output(value) }],
});

describe('TranscriptCache', () => {
  it('queries only what it lacks, and nothing after its own model response', async () => {
    const transcript: TranscriptMessage[] = [user];
    const { queries, query } = fakeRun(transcript);
    const cache = new TranscriptCache({}, query);
    expect((await cache.read(ref, 1)).messages).toEqual([user]);
    cache.append(ref, 1, [assistant('A')], 'resp-1');
    transcript.push(assistant('A'));
    expect((await cache.read(ref, 2, { mark: { at: 1, responseId: 'resp-1' } })).messages).toEqual(transcript);
    expect(queries).toEqual([[0, 1]]);
  });

  it('extends itself from the delta when it holds the referenced outputs, else asks the run', async () => {
    const transcript = [user, assistant('A'), toolMessage('out-1')];
    const { queries, query } = fakeRun(transcript);
    const cache = new TranscriptCache({}, query);
    await cache.read(ref, 1);
    cache.append(ref, 1, [assistant('A')], 'resp-1');
    cache.rememberToolOutput(ref, 'c1', 'out-id-1', output('out-1'));
    const delta = {
      at: 2,
      content: [{ type: 'tool-result-ref' as const, toolCallId: 'c1', toolName: 't', outputId: 'out-id-1' }],
    };
    expect((await cache.read(ref, 3, { delta })).messages).toEqual(transcript);
    expect(queries).toEqual([[0, 1]]);

    // Another worker's cache without the output (or with another attempt's) asks the run instead.
    const other = fakeRun(transcript);
    const cold = new TranscriptCache({}, other.query);
    await cold.read(ref, 1);
    cold.append(ref, 1, [assistant('A')], 'resp-1');
    cold.rememberToolOutput(ref, 'c1', 'out-id-STALE', output('stale'));
    expect((await cold.read(ref, 3, { delta })).messages).toEqual(transcript);
    expect(other.queries).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it('drops a model response cached by an attempt that was not the recorded one', async () => {
    const transcript = [user, assistant('recorded')];
    const { queries, query } = fakeRun(transcript);
    const cache = new TranscriptCache({}, query);
    await cache.read(ref, 1);
    // Attempt 1 ran here, but its completion was lost; attempt 2 (elsewhere) was recorded.
    cache.append(ref, 1, [assistant('lost attempt')], 'resp-attempt-1');
    const read = await cache.read(ref, 2, { mark: { at: 1, responseId: 'resp-attempt-2' } });
    expect(read.messages).toEqual(transcript);
    expect(queries).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it('a retry on the same worker replaces the earlier attempt at that position', async () => {
    const { query } = fakeRun([user]);
    const cache = new TranscriptCache({}, query);
    await cache.read(ref, 1);
    cache.append(ref, 1, [assistant('attempt 1')], 'a1');
    cache.append(ref, 1, [assistant('attempt 2')], 'a2');
    const read = await cache.read(ref, 2, { mark: { at: 1, responseId: 'a2' } });
    expect(read.messages).toEqual([user, assistant('attempt 2')]);
  });

  it('evicts the least recently used runs past its byte budget', async () => {
    const big: TranscriptMessage = { role: 'user', content: 'x'.repeat(1_000) };
    const { queries, query } = fakeRun([big]);
    const cache = new TranscriptCache({ maxBytes: 2_500 }, query);
    for (const runId of ['a', 'b', 'c']) await cache.read({ workflowId: 'wf', runId }, 1);
    // 'a' was evicted to make room for 'c'; 'c' is still cached.
    await cache.read({ workflowId: 'wf', runId: 'c' }, 1);
    await cache.read({ workflowId: 'wf', runId: 'a' }, 1);
    expect(queries).toHaveLength(4);
  });

  it('counts UTF-8 bytes, not characters: three-byte characters weigh three times as much', async () => {
    const read = async (content: string): Promise<number> => {
      const { queries, query } = fakeRun([{ role: 'user', content }]);
      const cache = new TranscriptCache({ maxBytes: 5_000 }, query);
      for (const runId of ['a', 'b', 'a']) await cache.read({ workflowId: 'wf', runId }, 1);
      return queries.length;
    };
    // 1,000 characters each: two runs fit in 5,000 bytes as ASCII, but not as 3,000 bytes of '€' each.
    expect(await read('x'.repeat(1_000))).toBe(2);
    expect(await read('€'.repeat(1_000))).toBe(3);
  });

  it('keeps at most maxRuns runs, and never a run larger than the whole budget', async () => {
    const { queries, query } = fakeRun([user]);
    const cache = new TranscriptCache({ maxRuns: 2 }, query);
    for (const runId of ['a', 'b', 'c', 'b', 'c', 'a']) await cache.read({ workflowId: 'wf', runId }, 1);
    expect(queries).toHaveLength(4);

    const huge = fakeRun([{ role: 'user', content: '€'.repeat(400) }]);
    const small = new TranscriptCache({ maxBytes: 1_000 }, huge.query);
    await small.read(ref, 1);
    await small.read(ref, 1);
    expect(huge.queries).toHaveLength(2);
  });

  it('bounds unclaimed tool outputs by bytes and by age', async () => {
    const transcript = [user, assistant('A'), toolMessage('€'.repeat(500))];
    const delta = {
      at: 2,
      content: [{ type: 'tool-result-ref' as const, toolCallId: 'c1', toolName: 't', outputId: 'o1' }],
    };
    const reads = async (limits: ConstructorParameters<typeof TranscriptCache>[0], waitMs = 0): Promise<number> => {
      const { queries, query } = fakeRun(transcript);
      const cache = new TranscriptCache(limits, query);
      await cache.read(ref, 1);
      cache.append(ref, 1, [assistant('A')], 'resp-1');
      cache.rememberToolOutput(ref, 'c1', 'o1', output('€'.repeat(500)));
      if (waitMs) await new Promise((resolve) => setTimeout(resolve, waitMs));
      expect((await cache.read(ref, 3, { delta })).messages).toEqual(transcript);
      return queries.length;
    };
    expect(await reads({})).toBe(1);
    // 1,500 bytes of '€' (500 characters) do not fit in 1,000 bytes: the run is asked instead.
    expect(await reads({ toolOutputMaxBytes: 1_000 })).toBe(2);
    expect(await reads({ toolOutputTtlMs: 5 }, 30)).toBe(2);
  });

  it('fails clearly when the run has fewer messages than asked for', async () => {
    const { query } = fakeRun([user]);
    const cache = new TranscriptCache({}, query);
    await expect(cache.read(ref, 3)).rejects.toThrow('Run wf returned 1 of 3 transcript messages.');
  });
  it('serves the first messages describeAgent seeded without a query, unless the run recorded another seed', async () => {
    const system: TranscriptMessage = { role: 'system', content: 'Be brief.' };
    const { queries, query } = fakeRun([system, user]);
    const cache = new TranscriptCache({}, query);
    cache.seed(ref, [system, user], run, 'seed-1');
    const read = await cache.read(ref, 2, { mark: { at: 0, responseId: 'seed-1' } });
    expect(read).toEqual({ messages: [system, user], run });
    expect(queries).toEqual([]);
    // Another attempt of describeAgent was recorded (its retriever answered differently): read the run.
    cache.seed(ref, [{ role: 'system', content: 'stale prompt' }, user], run, 'seed-attempt-1');
    expect((await cache.read(ref, 2, { mark: { at: 0, responseId: 'seed-2' } })).messages).toEqual([system, user]);
    expect(queries).toEqual([[0, 2]]);
  });

  it('forgets a run that waits for a person: its next read asks the run', async () => {
    const transcript = [user, assistant('A')];
    const { queries, query } = fakeRun(transcript);
    const cache = new TranscriptCache({}, query);
    await cache.read(ref, 1);
    cache.append(ref, 1, [assistant('A')], 'resp-1');
    cache.forget(ref);
    expect((await cache.read(ref, 2, { mark: { at: 1, responseId: 'resp-1' } })).messages).toEqual(transcript);
    expect(queries).toEqual([
      [0, 1],
      [0, 2],
    ]);
  });
});
