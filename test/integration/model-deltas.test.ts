// The model streams (since 0.4.0, PATCHES.modelDeltas): each step's `generate` attempt publishes the model's pieces
// on the run stream's `deltas` topic as they are written, the first at once and later ones in batches, tagged with
// step and attempt; a newer attempt's first publish comes after a `reset-step`, so a watcher that applies resets
// assembles exactly the final message, across a provider failing mid-answer and a worker SIGKILLed mid-answer.
// Only the step's own attempt can publish (a forged publish is dropped), and streaming can be turned off.
// Models: scripted streaming models with timed chunks, and the OpenAI-compatible fake over HTTP (SSE).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createAgentHandler } from '../../src/http/index.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import {
  MAX_DELTA_PUBLISH_BYTES,
  type DeltaPublish,
  type GenerateInput,
  type GenerateStreaming,
  type StreamedDeltas,
  encodeStreamData,
} from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { startOpenAIFakeServer } from '../models/openai-fake-server.js';
import { recordHistory, withAgentWorker } from '../support/agent-harness.js';
import { forgePublish } from '../support/hostile-watchers.js';
import { chunkReader, messageOf, serveHandler, textOf, userMessage } from '../support/http-chat.js';
import { killChild, startChildWorker } from '../support/child-worker.js';
import { bundleWorkflows, createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const ANSWER = Array.from({ length: 40 }, (_, i) => `token${i}`).join(' ') + '.';

/** A part with the time it reached this watcher. */
type Seen = RunStreamPart & { at: number };

async function watch(run: AgentRun, until?: (seen: Seen[]) => boolean): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const part of run.stream()) {
    seen.push({ ...part, at: Date.now() });
    if (until?.(seen)) break;
  }
  return seen;
}

const deltasOf = (parts: RunStreamPart[]): StreamedDeltas[] =>
  parts.flatMap((part) => (part.type === 'deltas' ? [part.deltas] : []));

/**
 * The text a watcher shows for `step` from its deltas, applying resets the way a client must: a `reset-step` voids
 * what earlier attempts wrote, and pieces of an attempt older than the newest reset are ignored.
 */
function assembledText(deltas: StreamedDeltas[], step: number): string {
  let attempt = 0;
  let text = '';
  for (const item of deltas) {
    if (item.step !== step) continue;
    if (item.type === 'reset-step') {
      attempt = item.attempt;
      text = '';
      continue;
    }
    if (item.attempt < attempt) continue;
    attempt = item.attempt;
    for (const part of item.parts) if (part.type === 'text-delta') text += part.text;
  }
  return text;
}

/** The `generate` inputs a run's history scheduled, in order. */
/** What a protocol-4 `generate` input says of the step's streaming. */
function streamOf(input: GenerateInput | undefined): GenerateStreaming | undefined {
  return input?.protocol === 4 ? input.stream : undefined;
}

async function generateInputs(workflowId: string): Promise<GenerateInput[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const inputs: GenerateInput[] = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'generate') continue;
    inputs.push(defaultPayloadConverter.fromPayload<GenerateInput>(scheduled.input!.payloads![0]!));
  }
  return inputs;
}

describe('model deltas', () => {
  it('streams a step as it is written: the first piece at once, then batches, all before the step finishes', async () => {
    const model = new ScriptedLanguageModel([{ text: ANSWER, stream: { chunkChars: 6, chunkDelayMs: 40 } }]);
    const agent = new Agent({ name: 'writer', instructions: '', model });
    await withAgentWorker(env, [agent], async ({ start }) => {
      // The starter watches from the start (as streamText does): the first piece goes out at once.
      const run = await start('writer', 'write', { streaming: { watched: true } });
      const parts = await watch(run);
      const result = await run.result();
      expect(result.text).toBe(ANSWER);
      const deltas = deltasOf(parts);
      // The first piece alone, published as soon as the model wrote it (time to first token).
      expect(deltas[0]).toEqual({
        type: 'deltas',
        step: 1,
        attempt: 1,
        parts: [
          { type: 'text-start', id: expect.any(String) as unknown },
          { type: 'text-delta', id: expect.any(String) as unknown, text: ANSWER.slice(0, 6) },
        ],
      });
      // Later pieces batched (about 100 ms each, against 40 ms chunks), never one item per chunk.
      const chunks = Math.ceil(ANSWER.length / 6);
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.length).toBeLessThan(chunks * 0.7);
      expect(deltas.every((d) => d.type === 'deltas' && d.step === 1 && d.attempt === 1)).toBe(true);
      expect(assembledText(deltas, 1)).toBe(result.text);
      // All of it before the step's final message: in offsets, and in time by far more than a batch.
      const text = parts.find((p) => p.type === 'event' && p.event.type === 'text')!;
      const firstDelta = parts.find((p) => p.type === 'deltas')!;
      const lastDelta = parts.findLast((p) => p.type === 'deltas')!;
      expect(lastDelta.offset).toBeLessThan(text.offset);
      expect(text.at - firstDelta.at).toBeGreaterThan(1_000);
      // The activity result still holds the assembled step; the token never reaches watchers.
      const [input] = await generateInputs(run.id);
      expect(input).toMatchObject({
        protocol: 4,
        stream: { token: expect.any(String) as unknown, intervalMs: 100, watched: true },
      });
      expect(JSON.stringify(parts)).not.toContain(streamOf(input)!.token);
      await recordHistory('model-deltas-streamed', env, run.id);
    });
  });

  it('a chat turn the HTTP handler starts is watched from its first piece: the page gets it alone, at once', async () => {
    const model = new ScriptedLanguageModel([{ text: ANSWER, stream: { chunkChars: 6, chunkDelayMs: 40 } }]);
    const agent = new Agent({ name: 'chat-writer', instructions: '', model });
    await withAgentWorker(env, [agent], async ({ client, taskQueue }) => {
      const handler = createAgentHandler({
        client,
        agent: agent.name,
        authenticate: () => ({ userId: 'ann' }),
        conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
      });
      const server = await serveHandler(handler);
      try {
        const sentAt = Date.now();
        const response = await fetch(`${server.url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: 'watched-chat', messages: [userMessage('write')], trigger: 'submit-message' }),
        });
        const reader = chunkReader(response);
        const head = await reader.until((chunk) => chunk.type === 'text-delta');
        const firstAt = Date.now();
        const rest = await reader.rest();
        const chunks = [...head, ...rest];
        const deltas = chunks.filter((chunk) => chunk.type === 'text-delta');
        const pieces = Math.ceil(ANSWER.length / 6);
        console.info(
          `chat turn: first text delta ${firstAt - sentAt} ms after the POST; ${deltas.length} text deltas for ` +
            `${pieces} pieces written over ${pieces * 40} ms; the first: ${JSON.stringify(head.at(-1))}`,
        );
        expect(textOf(await messageOf(chunks))).toBe(ANSWER);
        // The first piece alone, as the model wrote it (unwatched, the first batch caught up on several pieces).
        expect(head.at(-1)).toMatchObject({ type: 'text-delta', delta: ANSWER.slice(0, 6) });
        expect(deltas.length).toBeGreaterThan(3);
        // The turn's run started watched: its first step's generate input says so.
        const runs = [];
        for await (const run of client.list(`WorkflowType = 'agentRun' AND TaskQueue = '${taskQueue}'`)) runs.push(run);
        expect(runs).toHaveLength(1);
        const [input] = await generateInputs(runs[0]!.workflowId);
        expect(input).toMatchObject({ stream: { watched: true } });
      } finally {
        await server.close();
      }
    });
  });

  it('publishes only while someone watches: a step nobody watches sends nothing; one who comes mid-step gets it all', async () => {
    // Two steps: a tool call written over 4.5 s (so a watcher coming 1.5 s in has 3 s of it live even on a loaded
    // machine), then the answer over 2.3 s.
    const steps = [
      {
        text: ANSWER,
        toolCalls: [{ toolName: 'note', input: {}, toolCallId: 'n1' }],
        stream: { chunkChars: 4, chunkDelayMs: 60 },
      },
      { text: ANSWER, stream: { chunkChars: 4, chunkDelayMs: 30 } },
    ];
    const note = createTool({
      name: 'note',
      description: 'Notes.',
      parameters: z.object({}),
      execute: async () => 'ok',
    });
    const model = new ScriptedLanguageModel({ steps, stepSelection: 'assistant-turns' });
    const agent = new Agent({ name: 'unwatched-writer', instructions: '', model, tools: [note] });
    await withAgentWorker(env, [agent], async ({ start }) => {
      // Nobody watches: the streamed step costs no signal and no workflow task per batch.
      const alone = await start('unwatched-writer', 'write');
      expect((await alone.result()).text).toBe(ANSWER);
      const history = await alone.handle.fetchHistory();
      expect(history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(0);
      const inputs = await generateInputs(alone.id);
      expect(inputs.map((i) => streamOf(i)?.watched)).toEqual([false, false]);

      // Someone comes 1.5 s into the first step: they get that attempt's text from its start, then live; the
      // second step, begun while they watch, publishes from its first piece.
      const watched = await start('unwatched-writer', 'write');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const parts = await watch(watched);
      const result = await watched.result();
      const deltas = deltasOf(parts);
      expect(assembledText(deltas, 1)).toBe(ANSWER);
      expect(assembledText(deltas, 2)).toBe(result.text);
      const firstStepText = parts.find((p) => p.type === 'event' && p.event.type === 'text' && p.event.step === 1)!;
      const firstDelta = parts.find((p) => p.type === 'deltas')!;
      // Live: the first step's pieces came well before its final message (at most a probe interval after coming),
      // the catch-up batch and then live batches after it.
      expect(firstStepText.at - firstDelta.at).toBeGreaterThan(1_000);
      expect(deltas.filter((d) => d.type === 'deltas' && d.step === 1).length).toBeGreaterThan(3);
      expect((await generateInputs(watched.id))[1]).toMatchObject({ stream: { watched: true } });
      const memo = (await watched.handle.describe()).memo?.['durable-agent.watched'];
      expect(typeof memo).toBe('string');
      await recordHistory('model-deltas-watched-mid-step', env, watched.id);
    });
  });

  it('a provider failing mid-answer: the retry publishes a reset-step first, and the assembled text has no duplicated prefix', async () => {
    const model = new ScriptedLanguageModel([
      { text: ANSWER, stream: { chunkChars: 5, chunkDelayMs: 30, failAfterChunks: 12 } },
      { text: ANSWER, stream: { chunkChars: 5, chunkDelayMs: 30 } },
    ]);
    const agent = new Agent({
      name: 'flaky-writer',
      instructions: '',
      model,
      activity: { generate: { retry: { initialInterval: '200ms' } } },
    });
    await withAgentWorker(env, [agent], async ({ start }) => {
      // Watched from the start: the first attempt publishes before it fails 360 ms in.
      const run = await start('flaky-writer', 'write', { streaming: { watched: true } });
      const parts = await watch(run);
      const result = await run.result();
      expect(result.text).toBe(ANSWER);
      expect(model.callCount).toBe(2);
      const deltas = deltasOf(parts);
      const reset = deltas.findIndex((d) => d.type === 'reset-step');
      expect(deltas[reset]).toEqual({ type: 'reset-step', step: 1, attempt: 2 });
      // Attempt 1 wrote a prefix before it failed; everything after the reset is attempt 2.
      expect(deltas.slice(0, reset).every((d) => d.attempt === 1)).toBe(true);
      expect(deltas.slice(reset).every((d) => d.attempt === 2)).toBe(true);
      const naive = deltas
        .flatMap((d) => (d.type === 'deltas' ? d.parts.map((p) => (p.type === 'text-delta' ? p.text : '')) : []))
        .join('');
      expect(naive).not.toBe(ANSWER);
      // Shown without the reset, a watcher would repeat attempt 1's prefix before the whole answer.
      const prefix = naive.slice(0, naive.length - ANSWER.length);
      expect(naive.endsWith(ANSWER) && prefix.length > 0 && ANSWER.startsWith(prefix)).toBe(true);
      expect(assembledText(deltas, 1)).toBe(ANSWER);
      expect(deltas.filter((d) => d.type === 'reset-step')).toHaveLength(1);
      await recordHistory('model-deltas-retried', env, run.id);
    });
  });

  it('drops deltas published by anyone but the step’s own attempt: no token, a guessed one, a resent batch', async () => {
    const model = new ScriptedLanguageModel([{ text: ANSWER, stream: { chunkChars: 4, chunkDelayMs: 60 } }]);
    const agent = new Agent({ name: 'guarded-writer', instructions: '', model });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('guarded-writer', 'write');
      const watching = watch(run);
      await expect.poll(async () => (await generateInputs(run.id)).length, { timeout: 10_000 }).toBe(1);
      const [input] = await generateInputs(run.id);
      // Another client, speaking the stream's publish protocol.
      const forged = (token?: string, attempt = 1): Partial<DeltaPublish> => ({
        ...(token !== undefined ? { token } : {}),
        step: 1,
        attempt,
        parts: [{ type: 'text-delta', id: 'text-0', text: 'forged' }],
      });
      await forgePublish(run.handle, [
        { topic: 'deltas', value: forged() },
        { topic: 'deltas', value: forged('guessed', 9) },
        { topic: 'deltas', value: { type: 'reset-step', step: 1, attempt: 9 } },
        // The right token for another step, and oversized or malformed pieces.
        { topic: 'deltas', value: { ...forged(streamOf(input)!.token), step: 2 } },
        {
          topic: 'deltas',
          value: {
            ...forged(streamOf(input)!.token),
            parts: [{ type: 'text-delta', id: 'x', text: 'forged'.repeat(10_000) }],
          },
        },
        {
          topic: 'deltas',
          value: { ...forged(streamOf(input)!.token), parts: [{ type: 'evil-delta', id: 'x', text: 'forged' }] },
        },
      ]);
      // A batch the run already took, sent again with the same publisher and sequence (a resent signal): ignored.
      const resent = {
        items: [
          {
            topic: 'deltas',
            data: encodeItem({
              ...forged(streamOf(input)!.token, 1),
              parts: [{ type: 'text-delta', id: 'r', text: '[once]' }],
            }),
          },
        ],
        publisher_id: 'resender',
        sequence: 1,
      };
      await run.handle.signal('__temporal_workflow_stream_publish', resent);
      await run.handle.signal('__temporal_workflow_stream_publish', resent);
      const parts = await watching;
      expect(JSON.stringify(parts)).not.toContain('forged');
      const deltas = deltasOf(parts);
      expect(deltas.some((d) => d.type === 'reset-step')).toBe(false);
      // The token is a capability recorded in the run's history: who holds it may publish once, never twice.
      const once = deltas
        .flatMap((d) => (d.type === 'deltas' ? d.parts : []))
        .filter((p) => p.type === 'text-delta' && p.text === '[once]');
      expect(once).toHaveLength(1);
      expect(assembledText(deltas, 1).replace('[once]', '')).toBe(ANSWER);
      expect((await run.result()).text).toBe(ANSWER);
    });
  });

  it('streams a tool call’s input as it is written, named on its first piece, before the call runs', async () => {
    const echo = createTool({
      name: 'echo',
      description: 'Says it back.',
      parameters: z.object({ say: z.string() }),
      execute: async ({ say }) => say,
    });
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [{ toolName: 'echo', input: { say: 'hello streamed world' }, toolCallId: 'e1' }],
        stream: { chunkChars: 4, chunkDelayMs: 30 },
      },
      { text: 'said' },
    ]);
    const agent = new Agent({ name: 'echoer', instructions: '', model, tools: [echo] });
    await withAgentWorker(env, [agent], async ({ start }) => {
      // Watched from the start: the call's input is written in 150 ms.
      const run = await start('echoer', 'echo it', { streaming: { watched: true } });
      const parts = await watch(run);
      expect((await run.result()).text).toBe('said');
      const pieces = deltasOf(parts).flatMap((d) => (d.type === 'deltas' && d.step === 1 ? d.parts : []));
      expect(pieces.every((p) => p.type.startsWith('tool-input-') && p.id === 'e1')).toBe(true);
      expect(pieces[0]).toEqual({ type: 'tool-input-start', id: 'e1', toolName: 'echo' });
      expect(pieces.slice(1).every((p) => p.type === 'tool-input-delta')).toBe(true);
      const input = pieces.map((p) => (p.type === 'tool-input-delta' ? p.delta : '')).join('');
      expect(input).toBe(JSON.stringify({ say: 'hello streamed world' }));
      const lastPiece = parts.findLast((p) => p.type === 'deltas' && p.deltas.step === 1)!;
      const toolStarted = parts.find((p) => p.type === 'event' && p.event.type === 'tool-started')!;
      expect(lastPiece.offset).toBeLessThan(toolStarted.offset);
    });
  });

  it('a model writing 300 KB of multi-byte text in one piece: split into publishes under the bound, none dropped', async () => {
    // Hostile in size: 100,000 three-byte characters and emoji in a single delta, then a normal one.
    const huge = '€'.repeat(50_000) + '😀'.repeat(25_000) + '€'.repeat(25_000);
    const model = new ScriptedLanguageModel([{ text: huge + ' end.', stream: { chunkChars: huge.length } }]);
    const agent = new Agent({ name: 'huge-writer', instructions: '', model });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('huge-writer', 'write', { streaming: { watched: true } });
      const deltas = deltasOf(await watch(run));
      expect((await run.result()).text).toBe(huge + ' end.');
      expect(assembledText(deltas, 1)).toBe(huge + ' end.');
      for (const item of deltas) {
        if (item.type !== 'deltas') continue;
        expect(Buffer.byteLength(JSON.stringify(item.parts))).toBeLessThanOrEqual(MAX_DELTA_PUBLISH_BYTES);
      }
      expect(deltas.length).toBeGreaterThan(300_000 / MAX_DELTA_PUBLISH_BYTES);
    });
  });

  it('publishes nothing on deltas when streaming is off, by the agent or for one run', async () => {
    const script = () => [{ text: ANSWER, stream: { chunkChars: 6, chunkDelayMs: 5 } }];
    const quiet = new Agent({
      name: 'quiet-writer',
      instructions: '',
      model: new ScriptedLanguageModel({ steps: script(), stepSelection: 'assistant-turns' }),
      streaming: false,
    });
    const loud = new Agent({
      name: 'loud-writer',
      instructions: '',
      model: new ScriptedLanguageModel({ steps: script(), stepSelection: 'assistant-turns' }),
      streaming: { intervalMs: 250 },
    });
    expect(() => new Agent({ name: 'bad', instructions: '', streaming: { intervalMs: 5 } })).toThrow(/20 to 5000/);
    await withAgentWorker(env, [quiet, loud], async ({ start }) => {
      const byAgent = await start('quiet-writer', 'write');
      const byRun = await start('loud-writer', 'write', { streaming: false });
      // Saying who watches (as streamText does) does not turn on what the agent turned off.
      const watchedQuiet = await start('quiet-writer', 'write', { streaming: { watched: true } });
      const overruled = await start('quiet-writer', 'write', { streaming: { intervalMs: 1, watched: true } });
      const agentInterval = await start('loud-writer', 'write', { streaming: { watched: true } });
      for (const run of [byAgent, byRun, watchedQuiet]) {
        const parts = await watch(run);
        expect(deltasOf(parts)).toEqual([]);
        expect(parts.at(-1)).toMatchObject({ type: 'event', event: { type: 'finished', text: ANSWER } });
        const [input] = await generateInputs(run.id);
        expect(input).toMatchObject({ protocol: 4 });
        expect(input).not.toHaveProperty('stream');
      }
      // The run's option wins over the agent's, its interval clamped; the agent's interval applies otherwise.
      expect(assembledText(deltasOf(await watch(overruled)), 1)).toBe(ANSWER);
      expect((await generateInputs(overruled.id))[0]).toMatchObject({ stream: { intervalMs: 20 } });
      expect(assembledText(deltasOf(await watch(agentInterval)), 1)).toBe(ANSWER);
      expect((await generateInputs(agentInterval.id))[0]).toMatchObject({ stream: { intervalMs: 250 } });
    });
  });

  it('streams through an OpenAI-compatible provider over HTTP (SSE), cut mid-answer and retried', async () => {
    const server = await startOpenAIFakeServer({
      apiKey: 'sk-test',
      chat: [
        { text: ANSWER, stream: { chunkChars: 7, chunkDelayMs: 20, cutAfterChunks: 10 } },
        { text: ANSWER, stream: { chunkChars: 7, chunkDelayMs: 20 } },
      ],
    });
    try {
      const agent = new Agent({
        name: 'http-writer',
        instructions: '',
        model: 'openai/gpt-fake',
        activity: { generate: { retry: { initialInterval: '200ms' } } },
      });
      const providers = new ProviderRegistry({ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL } });
      await withAgentWorker(
        env,
        [agent],
        async ({ start }) => {
          // Watched from the start (as streamText does), so the first attempt publishes before it is cut 200 ms in.
          const run = await start('http-writer', 'write', { streaming: { watched: true } });
          const deltas = deltasOf(await watch(run));
          expect((await run.result()).text).toBe(ANSWER);
          expect(server.chatRequests.map((r) => r.body?.stream)).toEqual([true, true]);
          expect(deltas.filter((d) => d.type === 'reset-step')).toEqual([{ type: 'reset-step', step: 1, attempt: 2 }]);
          expect(assembledText(deltas, 1)).toBe(ANSWER);
        },
        { providers },
      );
    } finally {
      await server.close();
    }
  });
});

/** A stream item's wire form (base64 Payload proto), as a Workflow Streams client encodes it. */
function encodeItem(value: unknown): string {
  return encodeStreamData(defaultPayloadConverter.toPayload(value));
}

// Two worker processes started under tsx and a bundle: longer than the default timeout on a loaded machine.
describe('model deltas across a worker crash', () => {
  const WORKER = fileURLToPath(new URL('../fixtures/crash/worker.ts', import.meta.url));
  const STREAMED_ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + '.';

  it('a worker SIGKILLed mid-answer: the new attempt resets the step, and the watcher assembles the final text once', async () => {
    const bundlePath = join(mkdtempSync(join(tmpdir(), 'durable-agent-bundle-')), 'workflows.js');
    writeFileSync(bundlePath, (await bundleWorkflows(workflowsPath())).code);
    const taskQueue = uniqueTaskQueue('deltas-crash');
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
    const start = () =>
      startChildWorker(WORKER, { TASK_QUEUE: taskQueue, SIDE_EFFECTS: sideEffects, WORKFLOW_BUNDLE: bundlePath });
    const client = new AgentClient({ client: env.client, taskQueue });
    let worker: ChildProcess = await start();
    try {
      const run = await client.start('streamer', 'go', { workflow: { workflowExecutionTimeout: '2 minutes' } });
      const watching = watch(run);
      // Kill once the first attempt has published a good part of the answer.
      const early = await watch(run, (seen) => assembledText(deltasOf(seen), 1).length > 80);
      expect(deltasOf(early).every((d) => d.attempt === 1)).toBe(true);
      await killChild(worker);
      worker = await start();
      const parts = await watching;
      const result = await run.result();
      expect(result.text).toBe(STREAMED_ANSWER);
      const deltas = deltasOf(parts);
      expect(deltas.filter((d) => d.type === 'reset-step')).toEqual([{ type: 'reset-step', step: 1, attempt: 2 }]);
      expect(assembledText(deltas, 1)).toBe(STREAMED_ANSWER);
      await recordHistory('model-deltas-worker-killed', env, run.id);
    } finally {
      await killChild(worker).catch(() => undefined);
    }
  }, 150_000);
});
