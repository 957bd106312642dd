// Smoke test of the test infrastructure itself: a real dev server, a real worker running a bundled workflow, and
// every kind of interaction the product tests build on (start, query, signal, activity, result, history, replay).
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../fixtures/smoke/activities.js';
import { approveSignal, smokeWorkflow, statusQuery } from '../fixtures/smoke/workflows.js';
import { countScheduledActivities } from '../support/history.js';
import { bundleWorkflows, createTestEnv, randomWorkflowId, uniqueTaskQueue } from '../support/temporal.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/smoke/workflows.ts', import.meta.url));

describe('smoke: dev server, worker, bundled workflow', () => {
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;

  beforeAll(async () => {
    [env, workflowBundle] = await Promise.all([createTestEnv(), bundleWorkflows(workflowsPath)]);
  });

  afterAll(async () => {
    await env?.teardown();
  });

  it('runs a workflow through query, signal, activity and result, and replays its history', async () => {
    const taskQueue = uniqueTaskQueue('smoke');
    const calls: string[] = [];
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace,
      taskQueue,
      workflowBundle,
      activities: createActivities(calls),
    });

    const history = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(smokeWorkflow, {
        taskQueue,
        workflowId: randomWorkflowId('smoke'),
        args: ['Ada'],
        // A regression must fail the test, not hang it.
        workflowExecutionTimeout: '30 seconds',
      });

      expect(await handle.query(statusQuery)).toBe('waiting-for-approval');
      await handle.signal(approveSignal, 'Grace');
      expect(await handle.result()).toBe('Hello, Ada! (approved by Grace)');
      expect(await handle.query(statusQuery)).toBe('done');
      return handle.fetchHistory();
    });

    expect(calls).toEqual(['composeGreeting(Ada, Grace)']);
    expect(countScheduledActivities(history)).toBe(1);
    expect(countScheduledActivities(history, 'composeGreeting')).toBe(1);
    await Worker.runReplayHistory({ workflowBundle }, history);
  });
});
