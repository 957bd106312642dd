// A Python client watches a run: Temporal's Python SDK (`temporalio` on PyPI) and its `workflow_streams` contrib
// subscribe to the run's stream over the protocol `@temporalio/workflow-streams` shares with it, and see the same
// items, at the same offsets, as a TypeScript watcher, through an approval decided while it watches. And a Python
// client sends a follow-up to a conversation (update-with-start), which its next turn answers with the first in view.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, randomWorkflowId, testServer } from '../support/temporal.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const watcher = fileURLToPath(new URL('../support/python/watch_run.py', import.meta.url));
const sender = fileURLToPath(new URL('../support/python/send_follow_up.py', import.meta.url));
const assembler = fileURLToPath(new URL('../support/python/assemble_text.py', import.meta.url));
// Installed by `npm test` (scripts/install-python-client.mjs); the script prints the interpreter's path.
const python = spawnSync(process.execPath, ['scripts/install-python-client.mjs'], {
  cwd: root,
  encoding: 'utf8',
}).stdout.trim();
const missing = !python || !existsSync(python) ? 'python3 with venv and pip is needed (see the install script)' : '';

interface PythonItem {
  offset: number;
  topic: string;
  data: { type?: string; seq?: number; toolCallId?: string };
}

/** Runs the Python watcher on a run's stream until it exits; `onItem` sees each item as it arrives. */
async function watchFromPython(
  workflowId: string,
  onItem: (item: PythonItem) => Promise<void>,
  from = 0,
): Promise<PythonItem[]> {
  const { address, namespace } = testServer();
  const child = spawn(python, [watcher, address, namespace, workflowId, String(from)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const items: PythonItem[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    const item = JSON.parse(line) as PythonItem;
    items.push(item);
    await onItem(item);
  }
  expect(await exited, stderr).toBe(0);
  return items;
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const transfer = createTool({
  name: 'transfer',
  description: 'Moves money. A person approves it.',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: async ({ amount }) => `moved ${amount}`,
});

describe.skipIf(missing)('a Python client', () => {
  it('watches a run live through an approval, with the offsets and items a TypeScript watcher sees', async () => {
    const agent = new Agent({
      name: 'treasurer',
      instructions: '',
      model: new ScriptedLanguageModel([
        { toolCalls: [{ toolName: 'transfer', input: { amount: 5 }, toolCallId: 't1' }] },
        { text: 'moved five' },
      ]),
      tools: [transfer],
    });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('treasurer', 'move five');
      const { address, namespace } = testServer();
      const child = spawn(python, [watcher, address, namespace, run.handle.workflowId], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const items: PythonItem[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        const item = JSON.parse(line) as PythonItem;
        items.push(item);
        // The run waits for a person: decide while Python watches, and it sees the rest arrive.
        if (item.data.type === 'approval-requested') await run.approve(item.data.toolCallId!);
      }
      expect(await exited, stderr).toBe(0);
      expect(await run.result()).toMatchObject({ text: 'moved five' });

      const types = items.map((item) => item.data.type);
      expect(types).toEqual(expect.arrayContaining(['approval-requested', 'approval-decided', 'tool-result']));
      expect(types.at(-1)).toBe('finished');
      // Offsets count from 0 with no gap, events in seq order: the same log, read through Python's client.
      expect(items.map((item) => item.offset)).toEqual(items.map((_, i) => i));
      const seqs = items.filter((item) => item.topic === 'events').map((item) => item.data.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));

      const ours: RunStreamPart[] = [];
      for await (const part of run.stream()) ours.push(part);
      expect(ours.map((part) => part.offset)).toEqual(items.map((item) => item.offset));
      expect(ours.map((part) => (part.type === 'event' ? part.event : undefined))).toEqual(
        items.map((item) => (item.topic === 'events' ? item.data : undefined)),
      );

      // A closed run, read from Python from an offset in the middle: the same items from there on.
      const late = await watchFromPython(run.handle.workflowId, async () => {}, 3);
      expect(late).toEqual(items.slice(3));
    });
  }, 60_000);

  it('sends a follow-up to a conversation, which its next turn answers with the earlier turn in view', async () => {
    const prompts: string[][] = [];
    const agent = new Agent({
      name: 'echo',
      instructions: '',
      model: new ScriptedLanguageModel(
        Array.from({ length: 4 }, () => (request: ScriptedRequest) => {
          prompts.push(request.prompt.map((message) => JSON.stringify(message.content)));
          return { text: `heard: ${request.lastUserText}` };
        }),
      ),
    });
    await withAgentWorker(env, [agent], async ({ client, taskQueue }) => {
      const id = randomWorkflowId('py-conversation');
      const conversation = client.conversation(id, { agent: 'echo', userId: 'ana' });
      const first = await conversation.send('my name is Ana');
      expect(await first.text()).toBe('heard: my name is Ana');

      const { address, namespace } = testServer();
      const child = spawn(python, [sender, address, namespace, taskQueue, id, 'echo', 'ana', 'what is my name?'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const lines: unknown[] = [];
      for await (const line of createInterface({ input: child.stdout })) lines.push(JSON.parse(line));
      expect(await exited, stderr).toBe(0);
      expect(lines[0]).toMatchObject({ turn: 2, position: 0 });
      expect(lines[1]).toEqual({ text: 'heard: what is my name?' });
      // The second turn's model call saw the first turn's message and answer, then Python's follow-up.
      const second = prompts.at(-1)!.join('\n');
      expect(second).toContain('my name is Ana');
      expect(second).toContain('heard: my name is Ana');
      expect(second).toContain('what is my name?');
      expect(await conversation.turn(2).text()).toBe('heard: what is my name?');
    });
  }, 60_000);

  it('assembles a streamed answer whose model call failed mid-answer exactly as the run recorded it, by the documented format', async () => {
    const answer = Array.from({ length: 20 }, (_, i) => `word${i + 1}`).join(' ');
    const model = new ScriptedLanguageModel([
      { text: answer, stream: { chunkChars: 4, chunkDelayMs: 40, failAfterChunks: 10 } },
      { text: answer, stream: { chunkChars: 4, chunkDelayMs: 40 } },
    ]);
    const agent = new Agent({
      name: 'flaky-speaker',
      instructions: '',
      model,
      activity: { generate: { retry: { initialInterval: '200ms' } } },
    });
    await withAgentWorker(env, [agent], async ({ start }) => {
      // Watched from the start, so the failed attempt publishes a prefix that the retry's reset voids.
      const run = await start('flaky-speaker', 'speak', { streaming: { watched: true } });
      const { address, namespace } = testServer();
      const child = spawn(python, [assembler, address, namespace, run.handle.workflowId], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(exited, stderr).toBe(0);
      const seen = JSON.parse(stdout) as {
        steps: Record<string, string>;
        final: Record<string, string>;
        resets: number;
      };
      expect((await run.result()).text).toBe(answer);
      expect(model.callCount).toBe(2);
      expect(seen.resets).toBe(1);
      // Every word, once: from the deltas alone, with the reset applied, as a TypeScript watcher assembles it.
      expect(seen.steps['1']).toBe(answer);
      expect(seen.final['1']).toBe(answer);
    });
  }, 60_000);
});
