// Crash drill of a conversation (a worker in a child process, scripted model): the worker is SIGKILLed in the middle
// of a turn's tool, and a follow-up is sent while no worker runs. A new worker finishes the turn and answers the
// follow-up: nothing is lost, nothing is answered twice.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { killChild, lines, startChildWorker, waitForLine } from '../support/child-worker.js';
import { bundleWorkflows, createTestEnv, randomWorkflowId, uniqueTaskQueue } from '../support/temporal.js';

const WORKER = fileURLToPath(new URL('../fixtures/conversation/worker.ts', import.meta.url));

let env: TestWorkflowEnvironment;
let bundlePath: string;
beforeAll(async () => {
  env = await createTestEnv();
  bundlePath = join(mkdtempSync(join(tmpdir(), 'durable-agent-bundle-')), 'workflows.js');
  writeFileSync(bundlePath, (await bundleWorkflows(workflowsPath())).code);
});
afterAll(async () => {
  await env?.teardown();
});

describe('conversation crash drill', () => {
  it(
    'finishes a turn whose worker was killed and answers a follow-up sent while no worker ran, each once',
    { timeout: 180_000 },
    async () => {
      const taskQueue = uniqueTaskQueue('conv-crash');
      const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
      const start = () =>
        startChildWorker(WORKER, { TASK_QUEUE: taskQueue, SIDE_EFFECTS: sideEffects, WORKFLOW_BUNDLE: bundlePath });
      const client = new AgentClient({ client: env.client, taskQueue });
      const conversation = client.conversation(randomWorkflowId('conv-crash'), {
        agent: 'convo',
        userId: 'u1',
        workflow: { workflowExecutionTimeout: '3 minutes' },
      });
      let worker: ChildProcess = await start();
      try {
        expect(await (await conversation.send('hello')).text()).toBe('echo: hello');
        const slowTurn = await conversation.send('slow work');
        await waitForLine(sideEffects, /^slow-start turn=2 attempt=1/);
        await killChild(worker);
        // No worker now: the follow-up is kept until one starts (the send waits for it).
        const followUp = conversation.send('after the crash');
        await new Promise((r) => setTimeout(r, 1_000));
        worker = await start();
        const next = await followUp;
        expect(next.turn).toBe(3);
        expect(await slowTurn.text()).toBe('done: slow work');
        expect(await next.text()).toBe('echo: after the crash');
        for (let i = 0; i < 100 && (await conversation.state()).completedTurns < 3; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const log = lines(sideEffects);
        // The tool ran again after the crash (a new attempt) and completed once.
        expect(log.filter((l) => l.startsWith('slow-start'))).toEqual([
          'slow-start turn=2 attempt=1',
          'slow-start turn=2 attempt=2',
        ]);
        expect(log.filter((l) => l.startsWith('slow-end'))).toEqual(['slow-end turn=2']);
        // Every user message was answered by exactly one final model call.
        const finals = log.filter((l) => l.startsWith('model ') && !l.includes('"slow work" user'));
        expect(finals).toEqual(['model "hello" user', 'model "slow work" tool', 'model "after the crash" user']);
        const history = await conversation.history();
        expect(history.messages.map((m) => [m.turn, m.role])).toEqual([
          [1, 'user'],
          [1, 'assistant'],
          [2, 'user'],
          [2, 'assistant'],
          [2, 'tool'],
          [2, 'assistant'],
          [3, 'user'],
          [3, 'assistant'],
        ]);
        await conversation.end();
      } finally {
        await killChild(worker);
      }
    },
  );

  it(
    'finishes a compaction whose worker was killed while the summarizer wrote, and answers the turn once',
    { timeout: 180_000 },
    async () => {
      const taskQueue = uniqueTaskQueue('conv-crash');
      const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
      const start = () =>
        startChildWorker(WORKER, { TASK_QUEUE: taskQueue, SIDE_EFFECTS: sideEffects, WORKFLOW_BUNDLE: bundlePath });
      const client = new AgentClient({ client: env.client, taskQueue });
      const conversation = client.conversation(randomWorkflowId('conv-crash'), {
        agent: 'summarized',
        userId: 'u1',
        workflow: { workflowExecutionTimeout: '3 minutes' },
      });
      let worker: ChildProcess = await start();
      try {
        expect(await (await conversation.send('one')).text()).toBe('echo: one');
        expect(await (await conversation.send('two')).text()).toBe('echo: two');
        expect(await (await conversation.send('three')).text()).toBe('echo: three');
        // Six messages, over the trigger of four: the next turn compacts first, and the summarizer is killed.
        const fourth = await conversation.send('four');
        await waitForLine(sideEffects, /^summary-start$/);
        await killChild(worker);
        worker = await start();
        expect(await fourth.text()).toBe('echo: four');
        const log = lines(sideEffects);
        // The summary was written again by the new worker (the first attempt died with its worker), and used once.
        expect(log.filter((l) => l === 'summary-start')).toHaveLength(2);
        expect(log.filter((l) => l.startsWith('model "four"'))).toEqual(['model "four" user with-summary']);
        for (let i = 0; i < 100 && (await conversation.state()).completedTurns < 4; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const state = await conversation.state();
        expect(state).toMatchObject({ completedTurns: 4, compactions: 1, hasSummary: true });
        // Nothing lost from the record: every turn's messages, the compacted ones included.
        const history = await conversation.history();
        expect(history.messages.filter((m) => m.role === 'user')).toHaveLength(4);
        await conversation.end();
      } finally {
        await killChild(worker);
      }
    },
  );
});
