// `DURABLE_AGENT_REDIS_URL=… npm run demo`: the demo's workers and its client read the Redis settings from the
// environment, its runs stream through Redis, and it survives its two crashes (a worker SIGKILLed while a run waits
// for approval, another while the model writes the answer) exactly as it does on Workflow Streams.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TIMEOUT_MS, runDemo } from '../support/demo.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

const KEY = 'demo-stream-key-0123456789abcdef';
let env: TestWorkflowEnvironment;
let redis: TestRedis;
beforeAll(async () => {
  [env, redis] = await Promise.all([createTestEnv(), startRedis()]);
});
afterAll(async () => {
  await redis?.close();
  await env?.teardown();
});

describe('npm run demo on Redis', () => {
  it(
    'streams its runs through Redis and survives both crashes',
    async () => {
      const taskQueue = uniqueTaskQueue('demo-redis');
      const { code, output } = await runDemo(taskQueue, {
        DURABLE_AGENT_REDIS_URL: redis.url,
        DURABLE_AGENT_STREAM_KEY: KEY,
      });
      expect(code, output).toBe(0);
      expect(output).toMatch(
        /Killed worker 1 \(pid \d+\) with SIGKILL while the run waits for approval of send_email\./,
      );
      expect(output).toMatch(/Killed worker 2 \(pid \d+\) with SIGKILL.* while the model writes the answer\./);
      expect(output).toMatch(/── Final answer\nOffline demo model/);
      expect(output).not.toMatch(/live stream is unavailable/i);

      // Every agent run of the demo has its stream in Redis (named by its memo) and no poll or publish in history.
      const query = `WorkflowType = 'agentRun' AND TaskQueue = '${taskQueue}'`;
      const runs: string[] = [];
      for await (const execution of env.client.workflow.list({ query })) runs.push(execution.workflowId);
      expect(runs.length).toBeGreaterThanOrEqual(2);
      const raw = new Redis(redis.url);
      let decisions = 0;
      try {
        for (const workflowId of new Set(runs)) {
          const handle = env.client.workflow.getHandle(workflowId);
          const firstRunId = (await handle.describe()).memo?.['durable-agent.live'];
          expect(typeof firstRunId, workflowId).toBe('string');
          const length = await raw.xlen(`durable-agent:live:{${workflowId}:${String(firstRunId)}}:stream`);
          expect(length, workflowId).toBeGreaterThan(3);
          const history = await handle.fetchHistory();
          const updates = history.events!.flatMap((e) => {
            const accepted = e.workflowExecutionUpdateAcceptedEventAttributes;
            return accepted ? [accepted.acceptedRequest?.input?.name ?? '(unnamed)'] : [];
          });
          const signals = history.events!.flatMap((e) => {
            const signaled = e.workflowExecutionSignaledEventAttributes;
            return signaled ? [signaled.signalName ?? '(unnamed)'] : [];
          });
          // The person's decision is the run's own update; no poll, no publish.
          expect(
            updates.filter((name) => !/approv|decision/i.test(name)),
            workflowId,
          ).toEqual([]);
          expect(signals, workflowId).toEqual([]);
          decisions += updates.length;
        }
      } finally {
        raw.disconnect();
      }
      // The approval went through its run's update (so the check above saw updates at all).
      expect(decisions).toBeGreaterThanOrEqual(1);
    },
    DEMO_TIMEOUT_MS,
  );
});
