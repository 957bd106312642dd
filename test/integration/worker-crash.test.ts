// A worker killed with SIGKILL in the middle of a tool: a fresh worker finishes the run, completed tools are not
// executed again, a streaming tool resumes from its last checkpoint, and the transcript is whole.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { killChild as kill, lines, startChildWorker, waitForLine } from '../support/child-worker.js';
import { bundleWorkflows, createTestEnv, uniqueTaskQueue } from '../support/temporal.js';
import { activityCounts, recordHistory } from '../support/agent-harness.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash/worker.ts', import.meta.url));

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

/** Starts the crash-test worker in a child process and resolves once it polls. */
function startWorker(taskQueue: string, sideEffects: string): Promise<ChildProcess> {
  return startChildWorker(WORKER, { TASK_QUEUE: taskQueue, SIDE_EFFECTS: sideEffects, WORKFLOW_BUNDLE: bundlePath });
}

describe('worker crash', () => {
  it('finishes the run on a new worker without re-running completed tools, resuming the stream from its checkpoint', async () => {
    const taskQueue = uniqueTaskQueue('crash');
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
    const client = new AgentClient({ client: env.client, taskQueue });

    let worker = await startWorker(taskQueue, sideEffects);
    const run = await client.start('crashy', 'go', { workflow: { workflowExecutionTimeout: '3 minutes' } });
    try {
      // Kill in the middle of the slow tool, after the quick one has completed.
      await waitForLine(sideEffects, /^slow-start attempt=1/);
      await kill(worker);
      worker = await startWorker(taskQueue, sideEffects);
      // Kill again after the streaming tool has yielded a few times.
      await waitForLine(sideEffects, /^counter-step 3$/);
      await kill(worker);
      worker = await startWorker(taskQueue, sideEffects);

      const result = await run.result();
      expect(result.text).toBe('all done');
      const log = lines(sideEffects);
      // The quick tool completed before the first crash and never ran again.
      expect(log.filter((l) => l.startsWith('quick '))).toHaveLength(1);
      // The slow tool was retried once, with the same idempotency key, and completed once.
      const slowStarts = log.filter((l) => l.startsWith('slow-start'));
      expect(slowStarts.map((l) => l.split(' ')[1])).toEqual(['attempt=1', 'attempt=2']);
      expect(new Set(slowStarts.map((l) => l.split(' ')[2])).size).toBe(1);
      expect(log.filter((l) => l.startsWith('slow-end'))).toEqual(['slow-end attempt=2']);
      // The stream resumed after its last checkpoint: at most one step ran twice.
      const steps = log.filter((l) => l.startsWith('counter-step')).map((l) => Number(l.split(' ')[1]));
      expect(steps.length).toBeLessThanOrEqual(7);
      expect([...new Set(steps)]).toEqual([1, 2, 3, 4, 5, 6]);
      const resumes = log.filter((l) => l.startsWith('counter-resume'));
      expect(resumes).toHaveLength(2);
      expect(Number(resumes[1]!.split('from=')[1])).toBeGreaterThanOrEqual(3);
      // The transcript is whole, and the model saw exactly one final result of the stream.
      expect(result.messages.map((m) => m.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
        'assistant',
        'tool',
        'assistant',
        'tool',
        'assistant',
      ]);
      expect(result.toolResults.map((r) => [r.toolCallId, r.output])).toEqual([
        ['q', { type: 'text', value: 'quick done' }],
        ['s', { type: 'text', value: 'slow done' }],
        ['c', { type: 'json', value: { n: 6 } }],
      ]);
      const history = await run.handle.fetchHistory();
      expect(activityCounts(history)).toEqual({ describeAgent: 1, generate: 4, executeTool: 3 });
      await recordHistory('worker-crash', env, run.id);
    } finally {
      await kill(worker).catch(() => undefined);
    }
  }, 150_000);

  it('keeps waiting for an approval across a worker crash and applies the later approval once', async () => {
    const taskQueue = uniqueTaskQueue('crash-approval');
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
    const client = new AgentClient({ client: env.client, taskQueue });
    let worker = await startWorker(taskQueue, sideEffects);
    try {
      const run = await client.start('gatekeeper', 'launch it', {
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
      const before = (await run.state()).pendingApprovals[0]!;
      await kill(worker);
      worker = await startWorker(taskQueue, sideEffects);
      // The fresh worker rebuilt the same wait from history: same request, not emitted again.
      const after = await run.state();
      expect(after.status).toBe('waiting');
      expect(after.pendingApprovals).toEqual([before]);
      await run.approve(before.toolCallId, { approver: 'ops' });
      await run.approve(before.toolCallId, { signal: true, approver: 'again' });
      const result = await run.result();
      expect(result.text).toBe('launched');
      expect(lines(sideEffects).filter((l) => l.startsWith('launch rocket'))).toHaveLength(1);
      const events = [];
      for await (const event of run.events()) events.push(event);
      expect(events.filter((e) => e.type === 'approval-requested')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'approval-decided')).toMatchObject([{ approved: true, approver: 'ops' }]);
      await recordHistory('worker-crash-during-approval', env, run.id);
    } finally {
      await kill(worker).catch(() => undefined);
    }
  });
});
