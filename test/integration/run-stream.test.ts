// One stream per run (since 0.4.0): watchers long-poll the run's stream (Workflow Streams' protocol) for its events and tool progress,
// share one subscription per process, resume from an offset across continue-as-new, and only the run's own tool
// activity attempt can put progress on it. Runs without a stream (started before 0.4.0) keep the events query.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@temporalio/client';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { RunWithoutStreamError, type RunStreamPart } from '../../src/client/run-stream.js';
import type { AgentRunInput, RunEvent } from '../../src/protocol/index.js';
import { toolProgressSignal } from '../../src/protocol/run-messages.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { createTestEnv, randomWorkflowId } from '../support/temporal.js';
import { recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';
import { forgePublish } from '../support/hostile-watchers.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const download = createTool({
  name: 'download',
  description: 'Downloads a file in chunks, reporting progress.',
  parameters: z.object({ chunks: z.number().int() }),
  execute: async function* ({ chunks }) {
    for (let done = 1; done <= chunks; done++) {
      await new Promise((r) => setTimeout(r, 250));
      yield { done, total: chunks };
    }
  },
});

function downloader(): Agent {
  const model = new ScriptedLanguageModel([
    { toolCalls: [{ toolName: 'download', input: { chunks: 8 }, toolCallId: 'dl' }] },
    { text: 'downloaded' },
  ]);
  return new Agent({ name: 'downloader', instructions: '', model, tools: [download] });
}

async function collect(parts: AsyncIterable<RunStreamPart>, until?: (seen: RunStreamPart[]) => boolean) {
  const seen: RunStreamPart[] = [];
  for await (const part of parts) {
    seen.push(part);
    if (until?.(seen)) break;
  }
  return seen;
}

/** The `from_offset` of every poll of the run's stream its history accepted (each poll is an Update). */
async function pollOffsets(workflowId: string): Promise<number[]> {
  const offsets: number[] = [];
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  for (const event of history.events ?? []) {
    const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (request?.input?.name !== '__temporal_workflow_stream_poll') continue;
    const payload = request.input.args!.payloads![0]!;
    offsets.push(defaultPayloadConverter.fromPayload<{ from_offset: number }>(payload).from_offset);
  }
  return offsets;
}

const events = (parts: RunStreamPart[]): RunEvent[] =>
  parts.flatMap((part) => (part.type === 'event' ? [part.event] : []));

describe('run stream', () => {
  it('two watchers see the same events and progress in order, through one shared subscription', async () => {
    await withAgentWorker(
      env,
      [downloader()],
      async ({ start }) => {
        const run = await start('downloader', 'get it');
        const [a, b] = await Promise.all([collect(run.stream()), collect(run.stream())]);
        expect(b).toEqual(a);
        expect(events(a).map((e) => e.seq)).toEqual(events(a).map((_, i) => i + 1));
        expect(events(a).at(-1)).toMatchObject({ type: 'finished', text: 'downloaded' });
        expect(a.map((p) => p.offset)).toEqual(a.map((_, i) => i));
        const progress = a.flatMap((p) => (p.type === 'progress' ? [p.progress] : []));
        expect(progress.length).toBeGreaterThanOrEqual(2);
        for (const p of progress) expect(p).toMatchObject({ toolCallId: 'dl', attempt: 1, value: { done: p.seq } });
        // One subscription: every poll the run accepted asked for a new offset (two would ask for each twice).
        const offsets = await pollOffsets(run.id);
        expect(new Set(offsets).size).toBe(offsets.length);
        await recordHistory('run-stream-progress', env, run.id);
      },
      { progressIntervalMs: 100 },
    );
  });

  it('keeps room for approvals when many processes watch a run: ten watchers park, a decision still lands', async () => {
    const send = createTool({
      name: 'send',
      description: 'Sends.',
      parameters: z.object({}),
      needsApproval: true,
      execute: async () => 'sent',
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'send', input: {}, toolCallId: 's1' }] },
      { text: 'sent it' },
    ]);
    const agent = new Agent({ name: 'sender', instructions: '', model, tools: [send] });
    await withAgentWorker(env, [agent], async ({ start, taskQueue }) => {
      const run = await start('sender', 'send');
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 10_000 }).toBe(1);
      // Ten processes watching (each its own client, so its own subscription): Temporal lets a run have 10 updates
      // in flight, and a parked poll is one.
      const watchers = Array.from({ length: 10 }, () =>
        new AgentClient({ client: new Client({ connection: env.client.connection }), taskQueue }).getRun(run.id),
      );
      const watching = watchers.map((watcher) => collect(watcher.stream()));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const decided = performance.now();
      await run.approve('s1', { approver: 'ana' });
      expect(performance.now() - decided).toBeLessThan(5_000);
      expect((await run.result()).text).toBe('sent it');
      // Every watcher, parked or told to wait its turn, reads the whole run.
      for (const parts of await Promise.all(watching)) {
        expect(events(parts).map((e) => e.seq)).toEqual(events(parts).map((_, i) => i + 1));
        expect(events(parts).at(-1)).toMatchObject({ type: 'finished', text: 'sent it' });
      }
    });
  });

  it('three processes watching from the run’s start each see the answer as it is written', async () => {
    // Seen on Temporal CLI 1.9.1: a query sent while a run's first task ran, then stream polls, left all polls but
    // one unaccepted until the run ended. Watchers no longer ask the run whether it has a stream (its history says).
    const steps = [{ text: 'x'.repeat(60), stream: { chunkChars: 2, chunkDelayMs: 50 } }];
    const model = new ScriptedLanguageModel({ steps, stepSelection: 'assistant-turns' });
    const agent = new Agent({ name: 'writer', instructions: '', model, maxSteps: 2 });
    await withAgentWorker(env, [agent], async ({ start, taskQueue }) => {
      const run = await start('writer', 'write');
      const watch = async () => {
        const watcher = new AgentClient({ client: new Client({ connection: env.client.connection }), taskQueue });
        const deltasAt: number[] = [];
        for await (const part of watcher.getRun(run.id).stream()) {
          if (part.type === 'deltas') deltasAt.push(Date.now());
        }
        return deltasAt;
      };
      const watched = await Promise.all([watch(), watch(), watch()]);
      const ended = Date.now();
      for (const deltasAt of watched) {
        // The answer takes 1.5 s to write: each watcher had pieces of it well before the end, not all at once after.
        expect(deltasAt.length).toBeGreaterThan(3);
        expect(ended - deltasAt[0]!).toBeGreaterThan(800);
      }
    });
  });

  it('drops progress and events published by anyone but the call’s own activity attempt', async () => {
    await withAgentWorker(
      env,
      [downloader()],
      async ({ start }) => {
        const run = await start('downloader', 'get it');
        await expect
          .poll(async () => (await run.state()).runningTools[0]?.progress?.seq ?? 0, { timeout: 15_000, interval: 50 })
          .toBeGreaterThanOrEqual(1);
        // Another client, speaking the stream's publish protocol: a guessed token, no token, a forged run event.
        const forged = { toolCallId: 'dl', seq: 999, value: 'forged', attempt: 1 };
        await forgePublish(run.handle, [
          { topic: 'progress', value: { ...forged, token: 'guessed' } },
          { topic: 'progress', value: forged },
          { topic: 'events', value: { type: 'text', step: 1, text: 'forged', seq: 999, at: new Date().toISOString() } },
        ]);
        // A poll from an offset the run never reaches is refused at once (it would hold an update slot until the end).
        const poll = (args: unknown) =>
          run.handle.executeUpdate('__temporal_workflow_stream_poll', { args: [args] as [unknown] });
        const refusal = (pattern: RegExp) => ({ cause: { message: expect.stringMatching(pattern) as unknown } });
        await expect(poll({ topics: [], from_offset: 1e9 })).rejects.toMatchObject(refusal(/stream ends at offset/));
        await expect(poll({ topics: Array(100).fill('x'), from_offset: 0 })).rejects.toMatchObject(
          refusal(/topics must be at most/),
        );
        // And the v0.3.0 progress signal, which a run with a stream no longer takes.
        await run.handle.signal(toolProgressSignal, { toolCallId: 'dl', seq: 998, value: 'forged' });

        const parts = await collect(run.stream());
        expect(JSON.stringify(parts)).not.toContain('forged');
        const progress = parts.flatMap((p) => (p.type === 'progress' ? [p.progress.seq] : []));
        // The genuine yields kept coming after the forgeries (a seq of 999 accepted would have hidden them).
        expect(progress.at(-1)).toBeGreaterThanOrEqual(6);
        expect(events(parts).at(-1)).toMatchObject({ type: 'finished' });
      },
      { progressIntervalMs: 100 },
    );
  });

  it('reads a finished run to its terminal event with every worker stopped, and a cancelled one', async () => {
    const { done, live } = await withAgentWorker(
      env,
      [downloader()],
      async ({ start }) => {
        const run = await start('downloader', 'get it');
        // A watcher that read the first part of the stream while the run ran, then left.
        const first = await collect(run.stream(), (seen) => events(seen).some((e) => e.type === 'tool-progress'));
        await run.result();
        return { done: run, live: first };
      },
      { progressIntervalMs: 100 },
    );
    // No worker runs: the stream's end is read from the run's final record. Its events keep their stream offsets;
    // the progress between them belongs to the call whose tool-result event closes it.
    const rest = await collect(done.stream({ from: live.at(-1)!.offset + 1 }));
    expect(rest.every((p) => p.type === 'event')).toBe(true);
    const all = [...live, ...rest];
    const offsets = all.map((p) => p.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(new Set(offsets).size).toBe(offsets.length);
    expect(events(all).map((e) => e.seq)).toEqual(events(all).map((_, i) => i + 1));
    expect(events(all).at(-1)).toMatchObject({ type: 'finished', text: 'downloaded' });
    expect(events(rest).map((e) => e.type)).toContain('tool-result');
    // From the start: every event of the run, at the offsets the live watcher saw them.
    const whole = await collect(done.stream());
    expect(whole.every((p) => p.type === 'event')).toBe(true);
    expect(events(whole).map((e) => e.seq)).toEqual(events(whole).map((_, i) => i + 1));
    for (const part of live.filter((p) => p.type === 'event')) expect(whole).toContainEqual(part);
    let text = '';
    for await (const piece of done.textStream) text += piece;
    expect(text).toBe('downloaded');
    await withAgentWorker(
      env,
      [downloader()],
      async ({ start }) => {
        const cancelled = await start('downloader', 'get it');
        const watching = collect(cancelled.stream());
        await expect
          .poll(async () => (await cancelled.state()).runningTools.length, { timeout: 15_000, interval: 50 })
          .toBe(1);
        await cancelled.handle.cancel();
        expect(events(await watching).at(-1)).toMatchObject({ type: 'cancelled' });
      },
      { progressIntervalMs: 100 },
    );
  });

  it('keeps its log bounded: a watcher from before the oldest item held is told what it missed', async () => {
    const ticker = createTool({
      name: 'ticker',
      description: 'Ticks.',
      parameters: z.object({ ticks: z.number().int() }),
      execute: async function* ({ ticks }) {
        for (let tick = 1; tick <= ticks; tick++) {
          await new Promise((r) => setTimeout(r, 2));
          yield tick;
        }
      },
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'ticker', input: { ticks: 1_500 }, toolCallId: 't' }] },
      { text: 'ticked' },
    ]);
    const agent = new Agent({ name: 'ticker', instructions: '', model, tools: [ticker] });
    await withAgentWorker(
      env,
      [agent],
      async ({ start }) => {
        const run = await start('ticker', 'tick');
        // Each shown yield is two items (progress, tool-progress event): past 2,000 the run keeps only the newest.
        const streamEnd = () => run.handle.query<number>('__temporal_workflow_stream_offset');
        await expect.poll(streamEnd, { timeout: 30_000, interval: 100 }).toBeGreaterThan(2_100);
        const parts = await collect(run.stream());
        expect(parts[0]).toMatchObject({ type: 'truncated', missedFrom: 0 });
        const base = parts[0]!.offset;
        expect(base).toBeGreaterThan(0);
        // What the live log held is dense; a tail read from the final record (if the run ended first) holds events.
        const offsets = parts.slice(1).map((p) => p.offset);
        expect(offsets).toEqual([...new Set(offsets)].sort((a, b) => a - b));
        expect(offsets[0]).toBe(base);
        expect(events(parts).at(-1)).toMatchObject({ type: 'finished', text: 'ticked' });
        // run.events() fills the truncated part from the events query: every seq, once.
        const all: RunEvent[] = [];
        for await (const event of run.events()) all.push(event);
        expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
        expect(all.at(-1)).toEqual(events(parts).at(-1));
      },
      { progressIntervalMs: 1 },
    );
  });

  it('a watcher that disconnects and resumes from its offset misses nothing and repeats nothing, across continue-as-new', async () => {
    const note = createTool({
      name: 'note',
      description: 'Takes a note.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => `noted ${n}`,
    });
    const steps = 8;
    const model = new ScriptedLanguageModel([
      ...Array.from({ length: steps - 1 }, (_, i) => ({ toolCalls: [{ toolName: 'note', input: { n: i + 1 } }] })),
      (request: ScriptedRequest) => ({ text: `notes: ${[...toolResultsSeen(request).values()].length}` }),
      // The v0.3.0-shaped run below goes on from the transcript.
      { text: 'resumed' },
    ]);
    const agent = new Agent({ name: 'scribe', instructions: 'Take notes.', model, tools: [note], maxSteps: 20 });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('scribe', 'take notes', { historyEventBudget: 25 });
      const firstRunId = (await run.handle.describe()).runId;
      const first = await collect(run.stream(), (seen) => seen.length === 5);
      // Disconnected while the run goes on and continues as new.
      await expect
        .poll(async () => (await env.client.workflow.getHandle(run.id, firstRunId).describe()).status.name, {
          timeout: 20_000,
        })
        .not.toBe('RUNNING');
      const rest = await collect(run.stream({ from: first.at(-1)!.offset + 1 }));
      const all = [...first, ...rest];
      expect(all.some((p) => p.type === 'truncated')).toBe(false);
      // Dense while the run ran; the end of a run that finished first comes from its record (events only).
      const offsets = all.map((p) => p.offset);
      expect(offsets).toEqual([...new Set(offsets)].sort((a, b) => a - b));
      expect(offsets.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
      expect(events(all).map((e) => e.seq)).toEqual(events(all).map((_, i) => i + 1));
      expect(events(all).filter((e) => e.type === 'continued-as-new').length).toBeGreaterThanOrEqual(2);
      expect(events(all).at(-1)).toMatchObject({ type: 'finished', text: `notes: ${steps - 1}` });
      // run.events() reads the same events from the stream.
      const viaEvents: RunEvent[] = [];
      for await (const event of run.events({ after: 3 })) viaEvents.push(event);
      expect(viaEvents).toEqual(events(all).slice(3));
      await recordHistory('run-stream-continue-as-new', env, run.id);

      // A run shaped like one started on v0.3.0 that continued as new onto this worker: its continuation has no
      // protocol and no stream, so it follows the legacy protocol and has none either (its memo says no protocol);
      // run.events() reads it through the events query.
      const { workflowExecutionStartedEventAttributes: started } = (await run.handle.fetchHistory()).events![0]!;
      const carried = defaultPayloadConverter.fromPayload<AgentRunInput>(started!.input!.payloads![0]!);
      const { stream: _stream, protocol: _protocol, ...continuation } = carried.continuation!;
      const old = env.client.workflow.getHandle(
        (
          await env.client.workflow.start('agentRun', {
            taskQueue: (await run.handle.describe()).taskQueue,
            workflowId: randomWorkflowId('v030-shaped'),
            args: [{ ...carried, maxSteps: steps + 1, continuation: { ...continuation, events: [] } }],
            workflowExecutionTimeout: '1 minute',
          })
        ).workflowId,
      );
      const oldRun = new (await import('../../src/client/agent-run.js')).AgentRun(old);
      const noStream: unknown = await collect(oldRun.stream()).catch((error: unknown) => error);
      expect(noStream).toBeInstanceOf(RunWithoutStreamError);
      expect(noStream).toMatchObject({ code: 'Client.NoStream' });
      const oldEvents: RunEvent[] = [];
      for await (const event of oldRun.events()) oldEvents.push(event);
      expect(oldEvents.at(-1)).toMatchObject({ type: 'finished', text: 'resumed' });
      expect(oldEvents.map((e) => e.seq)).toEqual(oldEvents.map((_, i) => i + 1));
    });
  });
});
