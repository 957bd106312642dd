// SIGTERM to a worker in the middle of a tool: the worker stops taking tasks, lets the tool finish (grace time,
// 30 s by default), reports its result and exits; another worker completes the run. Nothing runs twice. Past the
// grace time the tool's abort signal fires and the tool is retried elsewhere, as configured.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { activityCounts } from '../support/agent-harness.js';
import { bundleWorkflows, createTestEnv, testServer, uniqueTaskQueue } from '../support/temporal.js';

const WORKER = fileURLToPath(new URL('../fixtures/shutdown/worker.ts', import.meta.url));

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

interface StartedWorker {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

async function startWorker(taskQueue: string, sideEffects: string, extra: Record<string, string> = {}) {
  const child = fork(WORKER, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: testServer().address,
      TASK_QUEUE: taskQueue,
      SIDE_EFFECTS: sideEffects,
      WORKFLOW_BUNDLE: bundlePath,
      ...extra,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    void exited.then(({ code }) => reject(new Error(`worker exited before it was ready (${code})`)));
  });
  return { child, exited } satisfies StartedWorker;
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
}

async function waitForLine(file: string, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = lines(file).find((l) => pattern.test(l));
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no line matching ${pattern}: ${lines(file).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stop(worker: StartedWorker): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  await worker.exited;
}

describe('graceful shutdown', () => {
  it('lets a running tool finish on SIGTERM; the tool runs once and another worker completes the run', async () => {
    const taskQueue = uniqueTaskQueue('drain');
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
    const first = await startWorker(taskQueue, sideEffects, { SLOW_MS: '3000' });
    let second: StartedWorker | undefined;
    try {
      const run = await new AgentClient({ client: env.client, taskQueue }).start('drainer', 'go', {
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      await waitForLine(sideEffects, /^slow-start attempt=1/);
      second = await startWorker(taskQueue, sideEffects, { SLOW_MS: '3000' });
      const signalledAt = Date.now();
      first.child.kill('SIGTERM');

      const exit = await first.exited;
      expect(exit).toMatchObject({ code: 0, signal: null });
      const result = await run.result();
      expect(result.text).toBe('finished');

      const log = lines(sideEffects);
      const firstPid = `pid=${first.child.pid}`;
      // The tool started and ended once, both on the worker that was told to stop, and was never aborted.
      expect(log.filter((l) => l.startsWith('slow-'))).toEqual([
        `slow-start attempt=1 ${firstPid}`,
        `slow-end attempt=1 ${firstPid}`,
      ]);
      expect(log.some((l) => l.startsWith(`log SIGTERM: draining task queue '${taskQueue}'`))).toBe(true);
      expect(log).toContain(`log worker drained and stopped. ${firstPid}`);
      // It exited once the tool was done, well before the 30 s grace time.
      expect(exit.at - signalledAt).toBeLessThan(15_000);
      const history = await run.handle.fetchHistory();
      expect(activityCounts(history)).toEqual({ describeAgent: 1, generate: 2, executeTool: 1 });
      // No activity was retried: every one started once, at attempt 1.
      const starts = history.events?.filter((e) => e.activityTaskStartedEventAttributes) ?? [];
      expect(starts.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1, 1, 1]);
    } finally {
      await stop(first);
      if (second) await stop(second);
    }
  });

  it('past a configured grace time, aborts the tool, which then runs again on another worker', async () => {
    const taskQueue = uniqueTaskQueue('drain-grace');
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
    const first = await startWorker(taskQueue, sideEffects, { SLOW_MS: '8000', GRACE_TIME: '1s' });
    let second: StartedWorker | undefined;
    try {
      const run = await new AgentClient({ client: env.client, taskQueue }).start('drainer', 'go', {
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      await waitForLine(sideEffects, /^slow-start attempt=1/);
      second = await startWorker(taskQueue, sideEffects, { SLOW_MS: '500' });
      first.child.kill('SIGTERM');
      expect(await first.exited).toMatchObject({ code: 0 });
      expect((await run.result()).text).toBe('finished');

      const log = lines(sideEffects).filter((l) => l.startsWith('slow-'));
      expect(log).toEqual([
        `slow-start attempt=1 pid=${first.child.pid}`,
        `slow-aborted attempt=1 pid=${first.child.pid}`,
        `slow-start attempt=2 pid=${second.child.pid}`,
        `slow-end attempt=2 pid=${second.child.pid}`,
      ]);
    } finally {
      await stop(first);
      if (second) await stop(second);
    }
  });

  it('stops at once on a second SIGTERM; the interrupted tool runs again elsewhere', async () => {
    const taskQueue = uniqueTaskQueue('drain-twice');
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
    const first = await startWorker(taskQueue, sideEffects, { SLOW_MS: '8000' });
    let second: StartedWorker | undefined;
    try {
      const run = await new AgentClient({ client: env.client, taskQueue }).start('drainer', 'go', {
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      await waitForLine(sideEffects, /^slow-start attempt=1/);
      second = await startWorker(taskQueue, sideEffects, { SLOW_MS: '500' });
      first.child.kill('SIGTERM');
      await waitForLine(sideEffects, /^log SIGTERM: draining/);
      const signalledAt = Date.now();
      first.child.kill('SIGTERM');
      const exit = await first.exited;
      // 128 + SIGTERM (15), without waiting for the tool.
      expect(exit.code).toBe(143);
      expect(exit.at - signalledAt).toBeLessThan(3_000);
      expect((await run.result()).text).toBe('finished');
      const log = lines(sideEffects).filter((l) => l.startsWith('slow-'));
      expect(log).toEqual([
        `slow-start attempt=1 pid=${first.child.pid}`,
        `slow-start attempt=2 pid=${second.child.pid}`,
        `slow-end attempt=2 pid=${second.child.pid}`,
      ]);
    } finally {
      await stop(first);
      if (second) await stop(second);
    }
  });
});
