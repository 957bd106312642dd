// SIGTERM to a worker in the middle of a tool: the worker stops taking tasks, lets the tool finish (grace time,
// 30 s by default), reports its result and exits; another worker completes the run. Nothing runs twice. Past the
// grace time the tool's abort signal fires and the tool is retried elsewhere, as configured.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { activityCounts } from '../support/agent-harness.js';
import {
  lines,
  startWatchedWorker,
  stopWatchedWorker as stop,
  waitForLine,
  writeWorkflowBundle,
} from '../support/child-worker.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const WORKER = fileURLToPath(new URL('../fixtures/shutdown/worker.ts', import.meta.url));

let env: TestWorkflowEnvironment;
let bundlePath: string;
beforeAll(async () => {
  env = await createTestEnv();
  bundlePath = await writeWorkflowBundle();
});
afterAll(async () => {
  await env?.teardown();
});

function startWorker(taskQueue: string, sideEffects: string, extra: Record<string, string>) {
  return startWatchedWorker(WORKER, {
    TASK_QUEUE: taskQueue,
    SIDE_EFFECTS: sideEffects,
    WORKFLOW_BUNDLE: bundlePath,
    ...extra,
  });
}

/**
 * Two workers poll the queue; a run starts; resolves with the worker whose tool attempt began (the one to signal)
 * and the other one, so the signal always lands mid-tool whichever worker took the task.
 */
async function startRunOnTwoWorkers(name: string, extra: Record<string, string>) {
  const taskQueue = uniqueTaskQueue(name);
  const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
  const workers = [await startWorker(taskQueue, sideEffects, extra), await startWorker(taskQueue, sideEffects, extra)];
  const run = await new AgentClient({ client: env.client, taskQueue }).start('drainer', 'go', {
    workflow: { workflowExecutionTimeout: '2 minutes' },
  });
  const line = await waitForLine(sideEffects, /^slow-start attempt=1 /);
  const busy = workers.find((w) => line.endsWith(`pid=${w.child.pid}`))!;
  const idle = workers.find((w) => w !== busy)!;
  return { run, sideEffects, busy, idle, workers };
}

describe('graceful shutdown', () => {
  it('lets a running tool finish on SIGTERM; the tool runs once and another worker completes the run', async () => {
    const { run, sideEffects, busy, idle, workers } = await startRunOnTwoWorkers('drain', { SLOW_MS: '4000' });
    try {
      const signalledAt = Date.now();
      busy.child.kill('SIGTERM');
      const exit = await busy.exited;
      expect(exit).toMatchObject({ code: 0, signal: null });
      const result = await run.result();
      expect(result.text).toBe('finished');

      const log = lines(sideEffects);
      const busyPid = `pid=${busy.child.pid}`;
      // The tool started and ended once, both on the worker that was told to stop (after it was told), and was never
      // aborted or retried.
      expect(log.filter((l) => l.startsWith('slow-'))).toEqual([
        `slow-start attempt=1 ${busyPid}`,
        `slow-end attempt=1 ${busyPid}`,
      ]);
      const drainAt = log.findIndex((l) => l.startsWith(`log SIGTERM: draining task queue`));
      expect(drainAt).toBeGreaterThan(-1);
      expect(log.indexOf(`slow-end attempt=1 ${busyPid}`)).toBeGreaterThan(drainAt);
      expect(log).toContain(`log worker drained and stopped. ${busyPid}`);
      // It exited once the tool was done, well before the 30 s grace time.
      expect(exit.at - signalledAt).toBeLessThan(20_000);
      const history = await run.handle.fetchHistory();
      expect(activityCounts(history)).toEqual({ describeAgent: 1, generate: 2, executeTool: 1 });
      // No activity was retried: every one started once, at attempt 1.
      const starts = history.events?.filter((e) => e.activityTaskStartedEventAttributes) ?? [];
      expect(starts.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1, 1, 1]);
      // The final model call ran on the worker still polling.
      expect(idle.child.exitCode).toBeNull();
    } finally {
      await Promise.all(workers.map(stop));
    }
  });

  it('past a configured grace time, aborts the tool, which then runs again on another worker', async () => {
    const { run, sideEffects, busy, idle, workers } = await startRunOnTwoWorkers('drain-grace', {
      SLOW_MS: '60000',
      RETRY_MS: '300',
      GRACE_TIME: '1s',
    });
    try {
      busy.child.kill('SIGTERM');
      expect(await busy.exited).toMatchObject({ code: 0 });
      expect((await run.result()).text).toBe('finished');
      expect(lines(sideEffects).filter((l) => l.startsWith('slow-'))).toEqual([
        `slow-start attempt=1 pid=${busy.child.pid}`,
        `slow-aborted attempt=1 pid=${busy.child.pid}`,
        `slow-start attempt=2 pid=${idle.child.pid}`,
        `slow-end attempt=2 pid=${idle.child.pid}`,
      ]);
    } finally {
      await Promise.all(workers.map(stop));
    }
  });

  it('stops at once on a second SIGTERM; the interrupted tool runs again elsewhere', async () => {
    const { run, sideEffects, busy, idle, workers } = await startRunOnTwoWorkers('drain-twice', {
      SLOW_MS: '60000',
      RETRY_MS: '300',
    });
    try {
      busy.child.kill('SIGTERM');
      await waitForLine(sideEffects, /^log SIGTERM: draining/);
      const signalledAt = Date.now();
      busy.child.kill('SIGTERM');
      const exit = await busy.exited;
      // 128 + SIGTERM (15), without waiting for the tool.
      expect(exit.code).toBe(143);
      expect(exit.at - signalledAt).toBeLessThan(5_000);
      expect((await run.result()).text).toBe('finished');
      expect(lines(sideEffects).filter((l) => l.startsWith('slow-'))).toEqual([
        `slow-start attempt=1 pid=${busy.child.pid}`,
        `slow-start attempt=2 pid=${idle.child.pid}`,
        `slow-end attempt=2 pid=${idle.child.pid}`,
      ]);
    } finally {
      await Promise.all(workers.map(stop));
    }
  });
});
