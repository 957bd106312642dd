// A run's stream on Redis against a real Temporal server and a real redis-server: model deltas, tool progress and
// run events reach a watcher with no signal, update or query on the run per publish or per watcher; a watched run's
// history is an unwatched one's, event for event; entries forged or replayed by anyone who can reach Redis are not
// shown; a finished run is read with no worker; Redis stopped mid-answer fails nothing and the watcher is told.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import type { FullStreamPart } from '../../src/client/full-stream.js';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import { entryMac } from '../../src/live/entry-mac.js';
import { liveStreamKeys } from '../../src/live/redis-live-stream.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { LIVE_MEMO_KEY, encodeStreamData, type RunEvent } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { defaultPayloadConverter } from '@temporalio/common';
import { withAgentWorker } from '../support/agent-harness.js';
import type { History } from '../support/history.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { createTestEnv } from '../support/temporal.js';

const KEY = 'integration-stream-key-0123456789';
let env: TestWorkflowEnvironment;
let redis: TestRedis;
let raw: Redis;

beforeAll(async () => {
  [env, redis] = await Promise.all([createTestEnv(), startRedis()]);
  raw = new Redis(redis.url);
});
afterAll(async () => {
  raw?.disconnect();
  await redis?.close();
  await env?.teardown();
});

const ANSWER = 'It is sunny in Oslo today, with a light breeze from the fjord and no rain expected.';
const paced = { chunkChars: 3, chunkDelayMs: 15 };
const weather = createTool({
  name: 'weather',
  description: 'The weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'sunny' }),
});
const email = createTool({
  name: 'email',
  description: 'Sends an email.',
  parameters: z.object({ to: z.string() }),
  needsApproval: true,
  execute: async ({ to }) => ({ sent: to }),
});

function forecaster(name = 'forecaster', answer = ANSWER, pacing = paced): Agent {
  const run = [
    { text: 'Let me check. ', toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }], stream: pacing },
    { text: answer, stream: pacing },
  ];
  // Two runs' worth: each test starts two.
  const model = new ScriptedLanguageModel([...run, ...run]);
  return new Agent({ name, instructions: '', model, tools: [weather] });
}

function client(url = redis.url): AgentClient {
  return new AgentClient({ client: env.client, liveStream: { url, key: KEY } });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const textOfStep = (parts: FullStreamPart[], step: number): string =>
  parts.flatMap((p) => (p.type === 'text-delta' && p.step === step ? [p.text] : [])).join('');

/** The history's event types, with local activities' and activities' types named (what the run did, in order). */
function shape(history: History): string[] {
  return (history.events ?? []).map((event) => {
    const type = String(event.eventType);
    const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return activity ? `${type}:${activity}` : type;
  });
}

function signalsAndUpdates(history: History): number {
  return (history.events ?? []).filter(
    (event) => event.workflowExecutionSignaledEventAttributes || event.workflowExecutionUpdateAcceptedEventAttributes,
  ).length;
}

describe('a run stream on Redis', () => {
  it('streams a watched step with no signal or update, and its history is an unwatched run’s, event for event', async () => {
    const agent = forecaster();
    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const reader = client();
        const watchedRun = await reader.start('forecaster', 'Weather in Oslo?', {
          taskQueue,
          streaming: { watched: true },
        });
        const [parts, full] = await Promise.all([collect(watchedRun.stream()), collect(watchedRun.fullStream)]);
        const result = await watchedRun.result();
        expect(result.text).toBe(ANSWER);
        // The answer as it was written, in several pieces, assembled to exactly the recorded text.
        expect(parts.filter((part) => part.type === 'deltas').length).toBeGreaterThan(5);
        expect(textOfStep(full, 2)).toBe(ANSWER);
        expect(full.at(-1)).toMatchObject({ type: 'finish', text: ANSWER });
        // Offsets dense from 0, events in seq order.
        expect(parts.map((part) => part.offset)).toEqual(parts.map((_, i) => i));
        const seqs = parts.flatMap((part) => (part.type === 'event' ? [part.event.seq] : []));
        expect(seqs).toEqual(seqs.map((_, i) => i + 1));
        // The items are in Redis, under the run's first execution.
        const handle = env.client.workflow.getHandle(watchedRun.id);
        const described = await handle.describe();
        expect(described.memo?.[LIVE_MEMO_KEY]).toBe(described.runId);
        const { stream } = liveStreamKeys('durable-agent:live', {
          workflowId: watchedRun.id,
          firstRunId: described.runId,
        });
        expect(await raw.xlen(stream)).toBe(parts.length);

        const unwatchedRun = await client().start('forecaster', 'Weather in Oslo?', { taskQueue });
        await unwatchedRun.result();
        const watched = await handle.fetchHistory();
        const unwatched = await env.client.workflow.getHandle(unwatchedRun.id).fetchHistory();
        expect(signalsAndUpdates(watched)).toBe(0);
        expect(shape(watched)).toEqual(shape(unwatched));
        console.log(
          `redis-run-stream: ${parts.length} stream items; history ${watched.events?.length} events watched, ` +
            `${unwatched.events?.length} unwatched; local activity markers ${(watched.events ?? []).filter((e) => e.markerRecordedEventAttributes).length}`,
        );
      },
      { liveStream: { url: redis.url, key: KEY } },
    );
  });

  it('shows none of the entries anyone who reaches Redis forges or replays, and reads a finished run with no worker', async () => {
    const model = new ScriptedLanguageModel([
      {
        text: 'Writing to the team. ',
        toolCalls: [{ toolName: 'email', input: { to: 'team@example.com' } }],
        stream: paced,
      },
      { text: 'The team knows.', stream: paced },
    ]);
    const agent = new Agent({ name: 'mailer', instructions: '', model, tools: [email] });
    const reader = client();
    const runId = await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const run = await reader.start('mailer', 'Tell the team', { taskQueue, streaming: { watched: true } });
        const watching = collect(run.fullStream);
        // While the run waits for the approval: inject text and an end, forge a code, replay genuine entries.
        await expect.poll(async () => (await run.state()).pendingApprovals?.length ?? 0, { timeout: 20_000 }).toBe(1);
        const firstRunId = (await env.client.workflow.getHandle(run.id).describe()).runId;
        const ref = { workflowId: run.id, firstRunId };
        const { stream, next } = liveStreamKeys('durable-agent:live', ref);
        const offset = Number(await raw.get(next));
        const injected = encodeStreamData(
          defaultPayloadConverter.toPayload({
            type: 'deltas',
            step: 2,
            attempt: 1,
            parts: [{ type: 'text-delta', id: 'x', text: 'INJECTED' }],
          }),
        );
        const wrongKey = entryMac(
          new TextEncoder().encode('not-the-workers-key-0123456789'),
          ref,
          1,
          offset,
          'deltas',
          injected,
        );
        await raw.xadd(stream, '*', 'o', String(offset), 't', 'deltas', 'd', injected, 'a', '1', 'm', wrongKey);
        await raw.xadd(stream, '*', 'o', String(offset), 't', 'deltas', 'd', injected, 'a', '1');
        const genuine = (await raw.xrange(stream, '-', '+')) as [string, string[]][];
        for (const [, fields] of genuine.slice(0, 5)) await raw.xadd(stream, '*', ...fields);
        await run.approve((await run.state()).pendingApprovals[0]!.toolCallId);
        const parts = await watching;
        expect(JSON.stringify(parts)).not.toContain('INJECTED');
        expect(textOfStep(parts, 2)).toBe('The team knows.');
        const shown = parts.filter((part) => part.type === 'text-delta').map((part) => (part as { text: string }).text);
        // Each piece once: no replayed piece shown twice.
        expect(shown.join('')).toBe('Writing to the team. The team knows.');
        return run.id;
      },
      { liveStream: { url: redis.url, key: KEY } },
    );
    // No worker now: the finished run's stream is read from Redis, whole and from an offset.
    const run = reader.getRun(runId);
    const parts: RunStreamPart[] = await collect(run.stream());
    expect(parts.at(-1)).toMatchObject({ type: 'event', event: { type: 'finished', text: 'The team knows.' } });
    const from = parts[Math.floor(parts.length / 2)]!.offset;
    expect(await collect(run.stream({ from }))).toEqual(parts.filter((part) => part.offset >= from));
  });

  it('finishes a run whose Redis stops mid-answer: the watcher is told, then gets the final text; Redis back, runs stream again', async () => {
    const own = await startRedis();
    try {
      const slow = { chunkChars: 2, chunkDelayMs: 40 };
      const agent = forecaster('outage', ANSWER, slow);
      await withAgentWorker(
        env,
        [agent],
        async ({ taskQueue }) => {
          const reader = client(own.url);
          const run = await reader.start('outage', 'Weather in Oslo?', { taskQueue, streaming: { watched: true } });
          const parts: RunStreamPart[] = [];
          let stopped: Promise<void> | undefined;
          for await (const part of run.stream()) {
            parts.push(part);
            // Mid-answer of the second step: Redis goes away.
            if (!stopped && part.type === 'deltas' && part.deltas.step === 2) stopped = own.stop();
          }
          await stopped;
          const result = await run.result();
          expect(result.text).toBe(ANSWER);
          const unavailable = parts.findIndex((part) => part.type === 'live-unavailable');
          expect(unavailable).toBeGreaterThan(0);
          const after = parts.slice(unavailable + 1);
          expect(
            after.find((part) => part.type === 'event' && part.event.type === 'text' && part.event.step === 2),
          ).toMatchObject({
            event: { text: ANSWER },
          });
          expect(after.at(-1)).toMatchObject({ type: 'event', event: { type: 'finished', text: ANSWER } });
          // Offsets still only grow.
          const offsets = parts.map((part) => part.offset);
          expect(offsets).toEqual([...offsets].sort((a, b) => a - b));

          await own.start();
          const again = await reader.start('outage', 'And tomorrow?', { taskQueue, streaming: { watched: true } });
          const full = await collect(again.fullStream);
          expect(textOfStep(full, 2)).toBe(ANSWER);
          const live = await collect(again.stream());
          expect(live.some((part) => part.type === 'deltas')).toBe(true);
          expect(live.some((part) => part.type === 'live-unavailable')).toBe(false);
        },
        { liveStream: { url: own.url, key: KEY } },
      );
    } finally {
      await own.close();
    }
  });

  it('a provider failing mid-answer: the retry resets the step on Redis, and the assembled text is the final message', async () => {
    const model = new ScriptedLanguageModel([
      { text: ANSWER, stream: { chunkChars: 5, chunkDelayMs: 30, failAfterChunks: 8 } },
      { text: ANSWER, stream: { chunkChars: 5, chunkDelayMs: 30 } },
    ]);
    const agent = new Agent({
      name: 'flaky',
      instructions: '',
      model,
      activity: { generate: { retry: { initialInterval: '200ms' } } },
    });
    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const run = await client().start('flaky', 'write', { taskQueue, streaming: { watched: true } });
        const [parts, full] = await Promise.all([collect(run.stream()), collect(run.fullStream)]);
        expect((await run.result()).text).toBe(ANSWER);
        expect(model.callCount).toBe(2);
        const deltas = parts.flatMap((part) => (part.type === 'deltas' ? [part.deltas] : []));
        const reset = deltas.findIndex((d) => d.type === 'reset-step');
        expect(reset).toBeGreaterThan(0);
        expect(deltas[reset]).toEqual({ type: 'reset-step', step: 1, attempt: 2 });
        expect(deltas.slice(0, reset).every((d) => d.attempt === 1)).toBe(true);
        expect(deltas.slice(reset).every((d) => d.attempt === 2)).toBe(true);
        // A watcher applies the reset (drops what it showed of the step): what follows is exactly the answer.
        const lastReset = full.findLastIndex((p) => p.type === 'reset-step' && p.step === 1);
        expect(lastReset).toBeGreaterThan(0);
        expect(textOfStep(full.slice(lastReset), 1)).toBe(ANSWER);
      },
      { liveStream: { url: redis.url, key: KEY } },
    );
  });

  it('resumes from an offset across continue-as-new: nothing missed, nothing repeated, one stream for the run', async () => {
    const note = createTool({
      name: 'note',
      description: 'Takes a note.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => `noted ${n}`,
    });
    const steps = 8;
    const model = new ScriptedLanguageModel([
      ...Array.from({ length: steps - 1 }, (_, i) => ({
        text: `note ${i + 1}. `,
        toolCalls: [{ toolName: 'note', input: { n: i + 1 } }],
        stream: paced,
      })),
      { text: 'all noted', stream: paced },
    ]);
    const agent = new Agent({ name: 'scribe', instructions: '', model, tools: [note], maxSteps: 20 });
    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const reader = client();
        const run = await reader.start('scribe', 'take notes', { taskQueue, historyEventBudget: 40 });
        const firstRunId = (await run.handle.describe()).runId;
        const first: RunStreamPart[] = [];
        for await (const part of run.stream()) {
          first.push(part);
          if (first.length === 12) break;
        }
        await run.result();
        const rest = await collect(run.stream({ from: first.at(-1)!.offset + 1 }));
        const all = [...first, ...rest];
        expect(all.some((p) => p.type === 'truncated' || p.type === 'live-unavailable')).toBe(false);
        expect(all.map((p) => p.offset)).toEqual(all.map((_, i) => i));
        const events = all.flatMap((p) => (p.type === 'event' ? [p.event] : []));
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        expect(events.filter((e) => e.type === 'continued-as-new').length).toBeGreaterThanOrEqual(1);
        expect(events.at(-1)).toMatchObject({ type: 'finished', text: 'all noted' });
        // Every step's pieces came live, across executions, on the stream of the run's first execution.
        const steps = new Set(all.flatMap((p) => (p.type === 'deltas' ? [p.deltas.step] : [])));
        expect(steps.size).toBe(8);
        const described = await run.handle.describe();
        expect(described.runId).not.toBe(firstRunId);
        expect(described.memo?.[LIVE_MEMO_KEY]).toBe(firstRunId);
        const read = await collect(reader.getRun(run.id).stream());
        expect(read).toEqual(all);
      },
      { liveStream: { url: redis.url, key: KEY } },
    );
  });

  it('costs a watched step what an unwatched one costs, where Workflow Streams costs a signal and an update a batch', async () => {
    // The same run watched on each transport: history events, signals and updates (printed for docs/performance.md).
    const measure = async (liveStream: 'workflow' | { url: string; key: string }) =>
      withAgentWorker(
        env,
        [forecaster('measured')],
        async ({ taskQueue }) => {
          const reader = new AgentClient({ client: env.client, liveStream });
          const watched = await reader.start('measured', 'Weather in Oslo?', {
            taskQueue,
            streaming: { watched: true },
          });
          const parts = await collect(watched.stream());
          await watched.result();
          const unwatched = await reader.start('measured', 'Weather in Oslo?', { taskQueue });
          await unwatched.result();
          const [w, u] = await Promise.all([watched.handle.fetchHistory(), unwatched.handle.fetchHistory()]);
          const deltas = parts.filter((p) => p.type === 'deltas').length;
          return {
            watched: w.events!.length,
            unwatched: u.events!.length,
            signalsAndUpdates: signalsAndUpdates(w),
            deltas,
          };
        },
        { liveStream },
      );
    const onRedis = await measure({ url: redis.url, key: KEY });
    const onWorkflow = await measure('workflow');
    console.log('redis-run-stream cost', JSON.stringify({ onRedis, onWorkflow }));
    expect(onRedis.signalsAndUpdates).toBe(0);
    expect(onRedis.watched).toBe(onRedis.unwatched);
    expect(onRedis.deltas).toBeGreaterThan(5);
    expect(onWorkflow.signalsAndUpdates).toBeGreaterThan(0);
    expect(onRedis.watched).toBeLessThan(onWorkflow.watched);
  });

  it('a watcher behind the retention trim gets the explicit marker, then the rest and the final message', async () => {
    // About 300 publishes (one per 20 ms for 6 s): approximate trimming removes whole nodes of 100 entries.
    const long = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ') + '.';
    const model = new ScriptedLanguageModel([{ text: long, stream: { chunkChars: 4, chunkDelayMs: 10 } }]);
    const agent = new Agent({ name: 'long-writer', instructions: '', model });
    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const reader = client();
        const run = await reader.start('long-writer', 'write', {
          taskQueue,
          streaming: { watched: true, intervalMs: 20 },
        });
        expect((await run.result()).text).toBe(long);
        // Read after the end, from the start: the oldest entries were trimmed away (about 100 kept).
        const parts = await collect(reader.getRun(run.id).stream());
        expect(parts[0]).toMatchObject({ type: 'truncated', missedFrom: 0 });
        expect(parts[0]!.offset).toBeGreaterThan(0);
        expect(parts.slice(1).map((p) => p.offset)).toEqual(parts.slice(1).map((_, i) => parts[0]!.offset + i));
        expect(parts.at(-1)).toMatchObject({ type: 'event', event: { type: 'finished', text: long } });
        const full = await collect(reader.getRun(run.id).fullStream);
        expect(full[0]).toMatchObject({ type: 'truncated', missedFrom: 0 });
        expect(full.at(-1)).toMatchObject({ type: 'finish', text: long });
      },
      { liveStream: { url: redis.url, key: KEY, maxLen: 100 } },
    );
  });

  it('shows a streaming tool’s yields as Workflow Streams does: progress parts, tool-progress events, fullStream', async () => {
    const download = createTool({
      name: 'download',
      description: 'Downloads a file in chunks, reporting progress.',
      parameters: z.object({ chunks: z.number().int() }),
      execute: async function* ({ chunks }) {
        for (let done = 1; done <= chunks; done++) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          yield { done, total: chunks };
        }
      },
    });
    const downloader = (): Agent =>
      new Agent({
        name: 'downloader',
        instructions: '',
        model: new ScriptedLanguageModel([
          { toolCalls: [{ toolName: 'download', input: { chunks: 8 }, toolCallId: 'dl' }] },
          { text: 'downloaded' },
        ]),
        tools: [download],
      });
    type ToolProgress = Extract<RunEvent, { type: 'tool-progress' }>;
    const progressOf = (events: RunEvent[]): ToolProgress[] =>
      events.filter((event): event is ToolProgress => event.type === 'tool-progress');
    /** The run's events and stream parts read live (run.events() of an ended run is its final record). */
    const watch = async (run: AgentRun) => {
      const [parts, events, full] = await Promise.all([
        collect(run.stream()),
        collect(run.events()),
        collect(run.fullStream),
      ]);
      expect((await run.result()).text).toBe('downloaded');
      return { parts, events, full };
    };

    // The same run on Workflow Streams: the run shows each yield as a progress item and a tool-progress event.
    const onWorkflowStreams = await withAgentWorker(
      env,
      [downloader()],
      async ({ start }) => watch(await start('downloader', 'get it')),
      {
        progressIntervalMs: 100,
      },
    );
    await withAgentWorker(
      env,
      [downloader()],
      async ({ taskQueue }) => {
        const reader = client();
        const run = await reader.start('downloader', 'get it', { taskQueue });
        const { parts, events, full } = await watch(run);
        const handle = env.client.workflow.getHandle(run.id);
        expect((await handle.describe()).memo?.[LIVE_MEMO_KEY]).toBeTruthy();

        // Each progress item is followed, at its offset, by the tool-progress event the run would have shown.
        const progress = parts.flatMap((part) => (part.type === 'progress' ? [part] : []));
        expect(progress.length).toBeGreaterThanOrEqual(3);
        for (const item of progress) {
          const next = parts[parts.indexOf(item) + 1];
          expect(next).toMatchObject({
            type: 'event',
            offset: item.offset,
            event: {
              type: 'tool-progress',
              toolCallId: 'dl',
              progressSeq: item.progress.seq,
              value: item.progress.value,
            },
          });
        }
        // run.events(): the same tool-progress events, each yield's own value, in order, once each; the run's own
        // events keep their gap-free seq, and a yield carries the seq of the event before it.
        const shown = progressOf(events);
        expect(shown.map((event) => event.progressSeq)).toEqual(progress.map((item) => item.progress.seq));
        for (const event of shown) expect(event.value).toEqual({ done: event.progressSeq, total: 8 });
        expect(shown.at(-1)!.progressSeq).toBeGreaterThanOrEqual(6);
        const runEvents = events.filter((event) => event.type !== 'tool-progress');
        expect(runEvents.map((event) => event.seq)).toEqual(runEvents.map((_, i) => i + 1));
        for (const event of shown) expect(event.seq).toBe(events[events.indexOf(event) - 1]!.seq);
        expect(events.at(-1)).toMatchObject({ type: 'finished', text: 'downloaded' });
        // fullStream: the same tool-progress run events, as on Workflow Streams.
        const fullProgress = (parts: FullStreamPart[]): ToolProgress[] =>
          progressOf(parts.flatMap((part) => (part.type === 'run-event' ? [part.event] : [])));
        expect(fullProgress(full).map((event) => event.progressSeq)).toEqual(shown.map((event) => event.progressSeq));

        // Both transports give the same parts and events for a yield (fields and values; Workflow Streams may drop
        // a last yield that reaches the run after the tool's result).
        const reference = onWorkflowStreams;
        const referenceShown = progressOf(reference.events);
        expect(referenceShown.length).toBeGreaterThanOrEqual(3);
        expect(fullProgress(reference.full).map((event) => event.progressSeq)).toEqual(
          referenceShown.map((event) => event.progressSeq),
        );
        const shape = (event: ToolProgress) => ({ ...event, seq: 0, at: '' });
        const common = referenceShown.filter((event) => shown.some((own) => own.progressSeq === event.progressSeq));
        expect(common.length).toBeGreaterThanOrEqual(3);
        expect(shown.filter((own) => common.some((event) => event.progressSeq === own.progressSeq)).map(shape)).toEqual(
          common.map(shape),
        );

        // A watcher resuming from a yield's offset gets exactly the parts from there, its event included.
        const from = progress[1]!.offset;
        expect(await collect(run.stream({ from }))).toEqual(parts.filter((part) => part.offset >= from));
        // What differs: the run never sees a yield on Redis, so its final record (run.events() of an ended run) and
        // run.state() have no progress (docs/durable-runs.md).
        expect(progressOf(await collect(run.events()))).toEqual([]);
      },
      { liveStream: { url: redis.url, key: KEY }, progressIntervalMs: 100 },
    );
  });

  it('needs the stream key with a Redis URL, and refuses a URL of another scheme', () => {
    expect(() => new AgentClient({ client: env.client, env: { DURABLE_AGENT_REDIS_URL: redis.url } })).toThrow(
      /DURABLE_AGENT_STREAM_KEY/,
    );
    expect(() => new AgentClient({ client: env.client, liveStream: { url: 'http://x', key: KEY } })).toThrow(
      /redis:\/\/ or rediss:\/\//,
    );
  });
});
