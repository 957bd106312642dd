// A Python reader of a run's Redis stream (redis-py, test/support/python/redis_assemble_text.py) against a real
// redis-server: it reads what the TypeScript RedisLiveStream published, checks every entry's HMAC with the stream key
// and drops what the TypeScript reader drops (forged entries, replays), reports a trim gap as it does, and assembles
// the same text by the rules of docs/durable-runs.md, which equals the step's recorded text; and on a real run whose
// model call fails mid-answer and is retried, the Python text is the TypeScript watcher's and the run's answer.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { toFullStream, type FullStreamPart } from '../../src/client/full-stream.js';
import { partsOfItems } from '../../src/client/stream-items.js';
import { entryMac } from '../../src/live/entry-mac.js';
import { liveRunItems, type LiveRawItem } from '../../src/live/live-run-items.js';
import type { LiveEntry, LiveRunRef } from '../../src/live/live-stream.js';
import { RedisLiveStream, liveStreamKeys } from '../../src/live/redis-live-stream.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { LIVE_MEMO_KEY, encodeStreamData } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { createTestEnv } from '../support/temporal.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const reader = fileURLToPath(new URL('../support/python/redis_assemble_text.py', import.meta.url));
// Installed by `npm test` (scripts/install-python-client.mjs, with redis-py); the script prints the interpreter.
const python = spawnSync(process.execPath, ['scripts/install-python-client.mjs'], {
  cwd: root,
  encoding: 'utf8',
}).stdout.trim();
const hasRedisPy = !!python && existsSync(python) && spawnSync(python, ['-c', 'import redis']).status === 0;
const missing = hasRedisPy ? '' : 'python3 with venv and pip, and redis-py, are needed (see the install script)';

const KEY = 'python-reader-stream-key-0123456789';
const PREFIX = 'durable-agent:live';

let server: TestRedis;
let raw: Redis;
let env: TestWorkflowEnvironment;
const transports: RedisLiveStream[] = [];

beforeAll(async () => {
  [server, env] = await Promise.all([startRedis(), createTestEnv()]);
  raw = new Redis(server.url);
});
afterAll(async () => {
  for (const transport of transports) await transport.close();
  raw?.disconnect();
  await server?.close();
  await env?.teardown();
});

function transport(options: { maxLen?: number } = {}): RedisLiveStream {
  const made = new RedisLiveStream({ url: server.url, key: KEY, ...options });
  transports.push(made);
  return made;
}

/** A run whose workflow id needs JSON's escapes and UTF-8 in the HMAC input: quotes, a backslash, a tab, U+0001. */
function newRun(): LiveRunRef {
  return { workflowId: `chat "ø" \\ \t\u0001 ✓ ${randomUUID()}`, firstRunId: randomUUID() };
}

/** A stream entry of JSON `value` on `topic`, encoded as workers publish it (base64 of a Payload). */
function entry(topic: string, value: unknown): LiveEntry {
  return { topic, data: encodeStreamData(defaultPayloadConverter.toPayload(value)) };
}

let seq = 0;
const event = (body: Record<string, unknown>): LiveEntry =>
  entry('events', { seq: ++seq, at: new Date().toISOString(), ...body });
const piece = (step: number, attempt: number, text: string, id = 't1'): LiveEntry =>
  entry('deltas', { type: 'deltas', step, attempt, parts: [{ type: 'text-delta', id, text }] });

interface PythonRead {
  items: { offset: number; topic: string; data: unknown }[];
  gaps: { missedFrom: number; offset: number }[];
  rejected: number;
  next: number;
  end: 'terminal' | 'idle' | 'unavailable';
  error?: string;
  assembled: {
    steps: Record<string, string>;
    final: Record<string, string>;
    shown: Record<string, string>;
    resets: number;
  };
}

/** Runs the Python reader on a run's stream; the key goes through the environment. */
function readFromPython(
  run: LiveRunRef,
  options: { from?: number; url?: string; idleMs?: number; key?: string } = {},
): Promise<PythonRead> {
  const args = [reader, options.url ?? server.url, run.workflowId, run.firstRunId];
  args.push('--from', String(options.from ?? 0), '--idle-ms', String(options.idleMs ?? 1_000));
  const child = spawn(python, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DURABLE_AGENT_STREAM_KEY: options.key ?? KEY },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`the Python reader exited with ${code}:\n${stderr}`));
      else resolve(JSON.parse(stdout) as PythonRead);
    });
  });
}

/** What the TypeScript client reads from `from`: the raw items (as JSON) and the text shown per step. */
async function readFromTypeScript(
  live: RedisLiveStream,
  run: LiveRunRef,
  from = 0,
): Promise<{ items: { offset: number; topic: string; data: unknown }[]; full: FullStreamPart[] }> {
  const rawItems: LiveRawItem[] = [];
  for await (const item of liveRunItems(live, run, from, { isClosed: async () => true })) rawItems.push(item);
  async function* replay(): AsyncGenerator<LiveRawItem> {
    yield* rawItems;
  }
  const full: FullStreamPart[] = [];
  for await (const part of toFullStream(partsOfItems(replay(), from), { from })) full.push(part);
  const items = rawItems.map(({ offset, topic, data }) => ({
    offset,
    topic,
    data: defaultPayloadConverter.fromPayload<unknown>(data),
  }));
  return { items, full };
}

/** The text a full stream shows for `step`: its text deltas after the step's last reset. */
function shownText(full: FullStreamPart[], step: number): string {
  let text = '';
  for (const part of full) {
    if (part.type === 'reset-step' && part.step === step) text = '';
    if (part.type === 'text-delta' && part.step === step) text += part.text;
  }
  return text;
}

/** Entries that the TypeScript reader counts as rejected, read from 0 on a fresh reader. */
async function rejectedByTypeScript(live: RedisLiveStream, run: LiveRunRef): Promise<number> {
  const fresh = live.reader(run, 0);
  let rejected = 0;
  try {
    for (;;) {
      const read = await fresh.read({ blockMs: 200 });
      rejected += read.rejected;
      if (read.items.length === 0) return rejected;
    }
  } finally {
    fresh.close();
  }
}

describe.skipIf(missing)(`a Python reader of a run's Redis stream${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('reads what workers published, drops forged and replayed entries as the TypeScript reader does, same text', async () => {
    const live = transport();
    const run = newRun();
    const { stream } = liveStreamKeys(PREFIX, run);
    const ANSWER = 'Hello from Redis, read in Python.';
    await live.publish(run, 1, [
      event({ type: 'run-started', agentName: 'a' }),
      event({ type: 'step-started', step: 1 }),
    ]);
    await live.publish(run, 1, [piece(1, 1, 'Hello fr'), piece(1, 1, 'om a fail')]);
    // Forged entries: no code, a wrong code, another key's code, a code of another run.
    const offset = Number(await raw.get(liveStreamKeys(PREFIX, run).next));
    const injected = piece(1, 1, ' INJECTED');
    await raw.xadd(stream, '*', 'o', String(offset), 't', 'deltas', 'd', injected.data, 'a', '1');
    await raw.xadd(stream, '*', 'o', String(offset), 't', 'deltas', 'd', injected.data, 'a', '1', 'm', 'AAAA');
    const otherKey = new TextEncoder().encode('another-key-0123456789abcdef');
    const forged = entryMac(otherKey, run, 1, offset, 'deltas', injected.data);
    await raw.xadd(stream, '*', 'o', String(offset), 't', 'deltas', 'd', injected.data, 'a', '1', 'm', forged);
    const elsewhere = entryMac(new TextEncoder().encode(KEY), newRun(), 1, offset, 'deltas', injected.data);
    await raw.xadd(stream, '*', 'o', String(offset), 't', 'deltas', 'd', injected.data, 'a', '1', 'm', elsewhere);
    // Genuine entries replayed as they are, and one with its offset moved on.
    const genuine = (await raw.xrange(stream, '-', '+')) as [string, string[]][];
    for (const [, fields] of genuine.slice(2, 4)) await raw.xadd(stream, '*', ...fields);
    const moved = [...genuine[3]![1]];
    moved[moved.indexOf('o') + 1] = String(offset);
    await raw.xadd(stream, '*', ...moved);
    // The model call is retried: attempt 2 resets the step; attempt 1, a zombie, still writes after it.
    await live.publish(run, 2, [entry('deltas', { type: 'reset-step', step: 1, attempt: 2 }), piece(1, 2, 'Hello ')]);
    await live.publish(run, 1, [piece(1, 1, 'ed attempt')]);
    await live.publish(run, 2, [piece(1, 2, 'from Redis, ', 't2')]);
    await live.publish(run, 2, [piece(1, 2, 'read in', 't2')]);
    await live.publish(run, 1, [
      event({ type: 'text', step: 1, text: ANSWER }),
      event({ type: 'step-finished', step: 1 }),
      event({ type: 'finished', text: ANSWER, finishReason: 'stop', stopReason: 'done' }),
    ]);

    const [fromPython, fromTypeScript, rejected] = await Promise.all([
      readFromPython(run),
      readFromTypeScript(live, run),
      rejectedByTypeScript(live, run),
    ]);
    expect(fromPython.end).toBe('terminal');
    expect(fromPython.gaps).toEqual([]);
    expect(JSON.stringify(fromPython.items)).not.toContain('INJECTED');
    expect(fromPython.items).toEqual(fromTypeScript.items);
    expect(fromPython.items.map((item) => item.offset)).toEqual(
      [...Array(12).keys()].filter((i) => i !== 6), // 6: the zombie attempt's piece after the reset, left out
    );
    expect(rejected).toBe(7);
    expect(fromPython.rejected).toBe(rejected);
    // The same text: the retried attempt's pieces, completed by the recorded text, which is the run's answer.
    expect(fromPython.assembled.steps['1']).toBe('Hello from Redis, read in');
    expect(fromPython.assembled.shown['1']).toBe(ANSWER);
    expect(shownText(fromTypeScript.full, 1)).toBe(ANSWER);
    expect(fromTypeScript.full.at(-1)).toMatchObject({ type: 'finish', text: ANSWER });

    // From an offset: the items from there on, the same as TypeScript's.
    const [laterPython, laterTypeScript] = await Promise.all([
      readFromPython(run, { from: 5 }),
      readFromTypeScript(live, run, 5),
    ]);
    // A reader from 5 never saw the reset at 4: the zombie's piece at 6 is an item to it (the assembler drops it).
    expect(laterPython.items.map((item) => item.offset)).toEqual([5, 6, 7, 8, 9, 10, 11]);
    expect(laterPython.items).toEqual(laterTypeScript.items);
    expect(laterPython.gaps).toEqual([]);

    // A replay that comes while the reader waits is dropped too.
    const waiting = readFromPython(run, { from: 12, idleMs: 1_500 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await raw.xadd(stream, '*', ...genuine[2]![1]);
    const replayed = await waiting;
    expect(replayed).toMatchObject({ items: [], gaps: [], end: 'idle', next: 12 });
    expect(replayed.rejected).toBeGreaterThanOrEqual(1);
  });

  it('computes the authentication code docs/durable-runs.md gives as an example, as the TypeScript publisher does', () => {
    const docs = readFileSync(`${root}/docs/durable-runs.md`, 'utf8');
    const code = /the input is `\["chat-1","r1",1,0,"events","e30="\]` and the\s+code `([\w-]{43})`/.exec(docs)?.[1];
    expect(code).toBeDefined();
    const key = new TextEncoder().encode('0123456789abcdef');
    expect(entryMac(key, { workflowId: 'chat-1', firstRunId: 'r1' }, 1, 0, 'events', 'e30=')).toBe(code);
    const script =
      'from redis_assemble_text import entry_mac\n' +
      'print(entry_mac(b"0123456789abcdef", "chat-1", "r1", 1, 0, "events", "e30="))';
    const computed = spawnSync(python, ['-c', script], { cwd: dirname(reader), encoding: 'utf8' });
    expect(computed.stderr).toBe('');
    expect(computed.stdout.trim()).toBe(code);
  });

  it('accepts nothing with the wrong key', async () => {
    const live = transport();
    const run = newRun();
    await live.publish(run, 1, [piece(1, 1, 'genuine'), piece(1, 1, ' text')]);
    const wrong = await readFromPython(run, { key: 'not-the-workers-key-0123456789', idleMs: 300 });
    expect(wrong).toMatchObject({ items: [], rejected: 2, end: 'idle', next: 0 });
    const right = await readFromPython(run, { idleMs: 300 });
    expect(right.items.map((item) => item.offset)).toEqual([0, 1]);
  });

  it('reports a trim gap as the TypeScript reader does, and shows the recorded text for the trimmed step', async () => {
    const live = transport({ maxLen: 100 });
    const run = newRun();
    const words = [...Array(300).keys()].map((i) => `w${i} `);
    const ANSWER = words.join('');
    await live.publish(run, 1, [
      event({ type: 'run-started', agentName: 'a' }),
      event({ type: 'step-started', step: 1 }),
    ]);
    for (let i = 0; i < words.length; i += 10) {
      await live.publish(
        run,
        1,
        words.slice(i, i + 10).map((word) => piece(1, 1, word)),
      );
    }
    await live.publish(run, 1, [
      event({ type: 'text', step: 1, text: ANSWER }),
      event({ type: 'finished', text: ANSWER, finishReason: 'stop', stopReason: 'done' }),
    ]);
    const length = await raw.xlen(liveStreamKeys(PREFIX, run).stream);
    const first = 304 - length;
    expect(first).toBeGreaterThan(0);

    const [fromPython, fromTypeScript] = await Promise.all([readFromPython(run), readFromTypeScript(live, run)]);
    expect(fromPython.gaps).toEqual([{ missedFrom: 0, offset: first }]);
    expect(fromTypeScript.full.find((part) => part.type === 'truncated')).toMatchObject({
      missedFrom: 0,
      offset: first,
    });
    expect(fromPython.items).toEqual(fromTypeScript.items);
    expect(fromPython.items[0]!.offset).toBe(first);
    expect(fromPython.end).toBe('terminal');
    // What streamed lacks its beginning; both readers have the same pieces of it, and the recorded text in full.
    const seen = words.slice(words.length - (304 - first - 2)).join('');
    expect(fromPython.assembled.steps['1']).toBe(seen);
    expect(shownText(fromTypeScript.full, 1)).toBe(seen);
    expect(fromPython.assembled.final['1']).toBe(ANSWER);
    expect(fromTypeScript.full.at(-1)).toMatchObject({ type: 'finish', text: ANSWER });
    // assemble_text.py shows the recorded text for a step whose beginning it missed; the TypeScript assembler shows
    // what it saw, placed inside the recorded text (docs/durable-runs.md, rule 4), and what follows it (nothing).
    expect(fromPython.assembled.shown['1']).toBe(ANSWER);
  });

  it('says the stream is unavailable when Redis cannot be reached', async () => {
    const own = await startRedis();
    const url = own.url;
    await own.close();
    const read = await readFromPython(newRun(), { url, idleMs: 300 });
    expect(read.end).toBe('unavailable');
    expect(read.error).toMatch(/connect/i);
  });

  it('assembles a real run streamed through Redis as the TypeScript watcher does: its answer, a retried call included', async () => {
    const ANSWER = Array.from({ length: 24 }, (_, i) => `word${i + 1}`).join(' ');
    const weather = createTool({
      name: 'weather',
      description: 'The weather in a city.',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, sky: 'sunny' }),
    });
    const paced = { chunkChars: 4, chunkDelayMs: 25 };
    const model = new ScriptedLanguageModel([
      { text: 'Let me check. ', toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }], stream: paced },
      // The answer's model call fails after ten pieces and is retried: attempt 2 resets the step.
      { text: ANSWER, stream: { ...paced, failAfterChunks: 10 } },
      { text: ANSWER, stream: paced },
    ]);
    const agent = new Agent({
      name: 'forecaster',
      instructions: '',
      model,
      tools: [weather],
      activity: { generate: { retry: { initialInterval: '200ms' } } },
    });
    const liveStream = { url: server.url, key: KEY };
    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const client = new AgentClient({ client: env.client, liveStream });
        const run = await client.start('forecaster', 'Weather in Oslo?', { taskQueue, streaming: { watched: true } });
        const handle = env.client.workflow.getHandle(run.id);
        // The run says where its live stream is once its worker described its agent.
        let firstRunId = '';
        await expect
          .poll(
            async () => {
              const memo = (await handle.describe()).memo?.[LIVE_MEMO_KEY];
              return (firstRunId = typeof memo === 'string' ? memo : '');
            },
            { timeout: 20_000 },
          )
          .not.toBe('');
        const ref = { workflowId: run.id, firstRunId };
        // Both watch while the answer is written: Python from Redis, TypeScript through the client.
        const [fromPython, full, result] = await Promise.all([
          readFromPython(ref, { idleMs: 30_000 }),
          (async () => {
            const parts: FullStreamPart[] = [];
            for await (const part of run.fullStream) parts.push(part);
            return parts;
          })(),
          run.result(),
        ]);
        expect(result.text).toBe(ANSWER);
        expect(model.callCount).toBe(3);
        expect(fromPython.end).toBe('terminal');
        expect(fromPython.gaps).toEqual([]);
        expect(fromPython.rejected).toBe(0);
        // Every item once, offsets dense from 0, and the same items the TypeScript reader reads from Redis.
        expect(fromPython.items.length).toBeGreaterThan(10);
        const afterwards = await readFromTypeScript(transport(), ref);
        expect(fromPython.items).toEqual(afterwards.items);
        // The retry's reset came through, and the answer is every word once: from the deltas, and as shown.
        expect(fromPython.assembled.resets).toBeGreaterThanOrEqual(1);
        expect(fromPython.assembled.steps['2']).toBe(ANSWER);
        expect(fromPython.assembled.shown['2']).toBe(ANSWER);
        expect(fromPython.assembled.shown['1']).toBe('Let me check. ');
        expect(shownText(full, 2)).toBe(ANSWER);
        expect(shownText(full, 1)).toBe('Let me check. ');
        expect(full.some((part) => part.type === 'reset-step' && part.step === 2)).toBe(true);
        expect(full.at(-1)).toMatchObject({ type: 'finish', text: ANSWER });
        const finished = fromPython.items.at(-1)!.data as { type: string; text: string };
        expect(finished).toMatchObject({ type: 'finished', text: ANSWER });
        console.log(
          `redis-python: a real run, ${fromPython.items.length} items read in Python ` +
            `(${fromPython.items.filter((item) => item.topic === 'deltas').length} deltas, ` +
            `${fromPython.assembled.resets} reset), the same text as TypeScript's`,
        );
      },
      { liveStream },
    );
  }, 90_000);
});
