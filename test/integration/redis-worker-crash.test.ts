// A worker SIGKILLed mid-answer on Redis: the worker processes read DURABLE_AGENT_REDIS_URL and
// DURABLE_AGENT_STREAM_KEY from their environment (as a deployment does), the killed attempt's pieces are voided by
// the new attempt's reset-step, and the watcher assembles the final text once, as on Workflow Streams
// (model-deltas.test.ts).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import type { StreamedDeltas } from '../../src/protocol/index.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { killChild, startChildWorker } from '../support/child-worker.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { bundleWorkflows, createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const KEY = 'crash-test-stream-key-0123456789';
const WORKER = fileURLToPath(new URL('../fixtures/crash/worker.ts', import.meta.url));
const STREAMED_ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + '.';

let env: TestWorkflowEnvironment;
let redis: TestRedis;
beforeAll(async () => {
  [env, redis] = await Promise.all([createTestEnv(), startRedis()]);
});
afterAll(async () => {
  await redis?.close();
  await env?.teardown();
});

async function watch(run: AgentRun, until?: (seen: RunStreamPart[]) => boolean): Promise<RunStreamPart[]> {
  const seen: RunStreamPart[] = [];
  for await (const part of run.stream()) {
    seen.push(part);
    if (until?.(seen)) break;
  }
  return seen;
}

const deltasOf = (parts: RunStreamPart[]): StreamedDeltas[] =>
  parts.flatMap((part) => (part.type === 'deltas' ? [part.deltas] : []));

/** A step's text as a watcher shows it: a reset voids earlier attempts; pieces older than the newest are ignored. */
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

describe('a worker crash on Redis', () => {
  it('a worker SIGKILLed mid-answer: the new attempt resets the step on Redis, and the watcher assembles the final text once', async () => {
    const bundlePath = join(mkdtempSync(join(tmpdir(), 'durable-agent-bundle-')), 'workflows.js');
    writeFileSync(bundlePath, (await bundleWorkflows(workflowsPath())).code);
    const taskQueue = uniqueTaskQueue('redis-crash');
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
    const start = () =>
      startChildWorker(WORKER, {
        TASK_QUEUE: taskQueue,
        SIDE_EFFECTS: sideEffects,
        WORKFLOW_BUNDLE: bundlePath,
        DURABLE_AGENT_REDIS_URL: redis.url,
        DURABLE_AGENT_STREAM_KEY: KEY,
      });
    // The reader from the environment too, as the CLI and a server configured by environment read.
    const client = new AgentClient({
      client: env.client,
      taskQueue,
      env: { DURABLE_AGENT_REDIS_URL: redis.url, DURABLE_AGENT_STREAM_KEY: KEY },
    });
    let worker: ChildProcess = await start();
    try {
      const run = await client.start('streamer', 'go', {
        streaming: { watched: true },
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      const watching = watch(run);
      const early = await watch(run, (seen) => assembledText(deltasOf(seen), 1).length > 80);
      expect(deltasOf(early).every((d) => d.attempt === 1)).toBe(true);
      await killChild(worker);
      worker = await start();
      const parts = await watching;
      expect((await run.result()).text).toBe(STREAMED_ANSWER);
      const deltas = deltasOf(parts);
      expect(deltas.filter((d) => d.type === 'reset-step')).toEqual([{ type: 'reset-step', step: 1, attempt: 2 }]);
      expect(assembledText(deltas, 1)).toBe(STREAMED_ANSWER);
      expect(parts.some((part) => part.type === 'live-unavailable')).toBe(false);
      // Through Redis: the run's memo names its stream, and nothing was polled or published on the run.
      expect((await run.handle.describe()).memo?.['durable-agent.live']).toEqual(expect.any(String));
      const history = await run.handle.fetchHistory();
      expect(
        history.events!.filter(
          (e) => e.workflowExecutionSignaledEventAttributes || e.workflowExecutionUpdateAcceptedEventAttributes,
        ),
      ).toEqual([]);
    } finally {
      await killChild(worker).catch(() => undefined);
    }
  }, 150_000);
});
