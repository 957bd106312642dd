// Many front-end instances on Redis: a chat POST on one HTTP handler, its resume GET on another and its stop on a
// third, with two workers on one task queue. Each handler has its own Temporal client and its own Redis transport
// (nothing shared in memory), as separate processes behind a load balancer without sticky sessions would.
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { createAgentHandler, type AgentHandlerOptions } from '../../src/http/index.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { createAgentWorker, workflowsPath } from '../../src/worker/create-agent-worker.js';
import { chunksOf, messageOf, serveHandler, textOf, userMessage, type TestHttpServer } from '../support/http-chat.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { bundleWorkflows, createTestEnv, testServer, uniqueTaskQueue } from '../support/temporal.js';

const KEY = 'multi-instance-stream-key-0123456789';
let env: TestWorkflowEnvironment;
let redis: TestRedis;

beforeAll(async () => {
  [env, redis] = await Promise.all([createTestEnv(), startRedis()]);
});
afterAll(async () => {
  await redis?.close();
  await env?.teardown();
});

const authenticate: AgentHandlerOptions['authenticate'] = (request) =>
  request.headers.get('authorization') === 'Bearer alice-token' ? { userId: 'alice' } : null;
const alice = { authorization: 'Bearer alice-token' };
const THINKING = 'Thinking it over, one file at a time, and slowly enough to be watched.';

function filesAgent(): Agent {
  const listFiles = createTool({
    name: 'list_files',
    description: 'Lists files.',
    parameters: z.object({}),
    execute: async () => ['a.txt', 'b.txt'],
  });
  const model = new ScriptedLanguageModel([
    {
      text: THINKING,
      toolCalls: [{ toolName: 'list_files', input: {}, toolCallId: 'ls' }],
      stream: { chunkChars: 4, chunkDelayMs: 30 },
    },
    // Long enough to resume and stop the turn (the scripted wait ends when the run is cancelled).
    { text: 'never said', delayMs: 60_000 },
  ]);
  return new Agent({ name: 'files', instructions: '', model, tools: [listFiles] });
}

/** A handler with a client and a Redis transport of its own, served on its own port. */
async function frontEnd(taskQueue: string): Promise<{ server: TestHttpServer; client: AgentClient }> {
  const temporal = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
  const client = new AgentClient({ client: temporal, taskQueue, liveStream: { url: redis.url, key: KEY } });
  const handler = createAgentHandler({
    client,
    agent: 'files',
    authenticate,
    conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
    onError: () => undefined,
  });
  return { server: await serveHandler(handler), client };
}

describe('front-end instances on Redis', () => {
  it('a chat POSTed on one handler is resumed on another and stopped on a third, with two workers', async () => {
    const taskQueue = uniqueTaskQueue();
    const bundle = await bundleWorkflows(workflowsPath());
    // Each worker has the agent (its own scripted model) and its own connection, as a process of its own would: the
    // run's tasks may go to either.
    const connections = await Promise.all(
      [0, 1].map(() => NativeConnection.connect({ address: testServer().address })),
    );
    const workers = await Promise.all(
      connections.map((connection) =>
        createAgentWorker({
          providers: new ProviderRegistry({ env: {} }),
          agents: [filesAgent()],
          taskQueue,
          connection,
          namespace: env.namespace ?? 'default',
          workflowBundle: bundle,
          liveStream: { url: redis.url, key: KEY },
        }),
      ),
    );
    const [one, two, three] = await Promise.all([frontEnd(taskQueue), frontEnd(taskQueue), frontEnd(taskQueue)]);
    const running = Promise.all(workers.map((worker) => worker.run()));
    try {
      const id = `chat${Math.random().toString(36).slice(2, 10)}`;
      // POST on the first: the page reads a little of the answer, then goes away.
      const leaving = new AbortController();
      const posted = await fetch(`${one.server.url}/api/chat`, {
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
      const resumed = await fetch(`${two.server.url}/api/chat/${id}/stream`, { headers: alice });
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
      const watching = fetch(`${two.server.url}/api/chat/${id}/stream`, { headers: alice });
      const stop = await fetch(`${three.server.url}/api/chat/${id}/stop`, { method: 'POST', headers: alice });
      expect(stop.status).toBe(202);
      const tail = await chunksOf(await watching);
      expect(tail.at(-1)).toEqual({ type: 'abort', reason: 'The run was cancelled.' } satisfies UIMessageChunk);
      expect(textOf(await messageOf(tail))).toBe(THINKING);
      // The turn has ended, for every instance (the conversation notes it once the run has closed).
      await expect
        .poll(async () => (await fetch(`${one.server.url}/api/chat/${id}/stream`, { headers: alice })).status, {
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
      await Promise.all([one, two, three].map(({ server }) => server.close()));
      for (const worker of workers) worker.shutdown();
      await running;
      await Promise.all(connections.map((connection) => connection.close()));
    }
  });
});
