// Many front-end instances on Redis: a chat POST on one HTTP handler, its resume GET on another and its stop on a
// third, with two workers on one task queue. Every handler and every worker is an OS process of its own (the
// handlers test/fixtures/multi-instance/handler.ts, the workers its worker.ts), each with its own Temporal client or
// connection and its own Redis connection, configured by DURABLE_AGENT_REDIS_URL and DURABLE_AGENT_STREAM_KEY as a
// deployment is: nothing is shared in memory, as processes behind a load balancer without sticky sessions.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THINKING } from '../fixtures/multi-instance/script.js';
import { killChild, startChildWorker, writeWorkflowBundle } from '../support/child-worker.js';
import { chunksOf, messageOf, textOf, userMessage } from '../support/http-chat.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { createTestEnv, testServer, uniqueTaskQueue } from '../support/temporal.js';

const KEY = 'multi-instance-stream-key-0123456789';
const WORKER = fileURLToPath(new URL('../fixtures/multi-instance/worker.ts', import.meta.url));
const HANDLER = fileURLToPath(new URL('../fixtures/multi-instance/handler.ts', import.meta.url));
let env: TestWorkflowEnvironment;
let redis: TestRedis;

beforeAll(async () => {
  [env, redis] = await Promise.all([createTestEnv(), startRedis()]);
});
afterAll(async () => {
  await redis?.close();
  await env?.teardown();
});

const alice = { authorization: 'Bearer alice-token' };

/** A handler process serving the files agent's chat; resolves with its URL and process once it listens. */
async function frontEnd(taskQueue: string): Promise<{ url: string; pid: number; child: ChildProcess }> {
  const child = fork(HANDLER, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: testServer().address,
      TEMPORAL_NAMESPACE: testServer().namespace,
      TASK_QUEUE: taskQueue,
      DURABLE_AGENT_REDIS_URL: redis.url,
      DURABLE_AGENT_STREAM_KEY: KEY,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const listening = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string; pid: number }));
    child.once('exit', (code) => reject(new Error(`handler process exited before it listened (${code})`)));
  });
  return { ...listening, child };
}

describe('front-end instances on Redis', () => {
  it('a chat POSTed on one handler is resumed on another and stopped on a third, with two workers', async () => {
    const taskQueue = uniqueTaskQueue();
    const bundle = await writeWorkflowBundle();
    // Two worker processes on the task queue: the run's tasks and activities may go to either.
    const workers = await Promise.all(
      [0, 1].map(() =>
        startChildWorker(WORKER, {
          TASK_QUEUE: taskQueue,
          WORKFLOW_BUNDLE: bundle,
          DURABLE_AGENT_REDIS_URL: redis.url,
          DURABLE_AGENT_STREAM_KEY: KEY,
        }),
      ),
    );
    const handlers = await Promise.all([frontEnd(taskQueue), frontEnd(taskQueue), frontEnd(taskQueue)]);
    const [one, two, three] = handlers;
    // Five processes of their own, none of them this one.
    const pids = [...handlers.map(({ pid }) => pid), ...workers.map((worker) => worker.pid)];
    expect(new Set(pids).size).toBe(5);
    expect(pids).not.toContain(process.pid);
    try {
      const id = `chat${Math.random().toString(36).slice(2, 10)}`;
      // POST on the first: the page reads a little of the answer, then goes away.
      const leaving = new AbortController();
      const posted = await fetch(`${one.url}/api/chat`, {
        method: 'POST',
        headers: { ...alice, 'content-type': 'application/json' },
        body: JSON.stringify({ id, messages: [userMessage('think')], trigger: 'submit-message' }),
        signal: leaving.signal,
      });
      expect(posted.status).toBe(200);
      const firstChunks = await chunksOf(posted, (chunks) => chunks.some((c) => c.type === 'text-delta'));
      expect(firstChunks.some((c) => c.type === 'text-delta')).toBe(true);
      leaving.abort();

      // Resumed on the second: the turn so far, then it keeps reading.
      const resumed = await fetch(`${two.url}/api/chat/${id}/stream`, { headers: alice });
      expect(resumed.status).toBe(200);
      const secondStep = (chunks: UIMessageChunk[]) => chunks.filter((c) => c.type === 'start-step').length === 2;
      const replay = await chunksOf(resumed, secondStep);
      const replayed = await messageOf(replay);
      expect(textOf(replayed)).toBe(THINKING);
      expect(replayed.parts.find((p) => p.type === 'tool-list_files')).toMatchObject({
        state: 'output-available',
        output: ['a.txt', 'b.txt'],
      });

      // Watched on the second, stopped on the third.
      const watching = fetch(`${two.url}/api/chat/${id}/stream`, { headers: alice });
      const stop = await fetch(`${three.url}/api/chat/${id}/stop`, { method: 'POST', headers: alice });
      expect(stop.status).toBe(202);
      const tail = await chunksOf(await watching);
      expect(tail.at(-1)).toEqual({ type: 'abort', reason: 'The run was cancelled.' } satisfies UIMessageChunk);
      expect(textOf(await messageOf(tail))).toBe(THINKING);
      // The turn has ended, for every instance (the conversation notes it once the run has closed).
      await expect
        .poll(async () => (await fetch(`${one.url}/api/chat/${id}/stream`, { headers: alice })).status, {
          timeout: 10_000,
        })
        .toBe(204);
      // The turn's run streamed through Redis: no poll or publish ever reached it (its memo names its Redis stream).
      const query = `WorkflowType = 'agentRun' AND TaskQueue = '${taskQueue}'`;
      let runId: string | undefined;
      await expect
        .poll(async () => {
          for await (const execution of env.client.workflow.list({ query })) runId = execution.workflowId;
          return runId;
        })
        .toBeDefined();
      const handle = env.client.workflow.getHandle(runId!);
      expect((await handle.describe()).memo?.['durable-agent.live']).toEqual(expect.any(String));
      const history = await handle.fetchHistory();
      const polls = history.events!.filter(
        (e) => e.workflowExecutionSignaledEventAttributes || e.workflowExecutionUpdateAcceptedEventAttributes,
      );
      expect(polls).toEqual([]);
    } finally {
      await Promise.all([...handlers.map(({ child }) => child), ...workers].map((child) => killChild(child)));
    }
  }, 150_000);
});
