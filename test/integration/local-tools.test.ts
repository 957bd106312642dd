// Tools with `activity: { local: true }` run as local activities inside the run's workflow task: no executeTool
// activity is scheduled for them, their result is recorded in a local activity marker, the model sees it like any
// tool's, the run's history replays, and a worker killed while a local tool runs leaves the tool to run again on the
// next worker (its workflow task times out; no marker was recorded).
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { LEGACY_PATCHES } from '../../workflows/legacy/patches.js';
import { PATCHES } from '../../workflows/patches.js';
import { activityCounts, recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';
import { scheduledActivities, type History } from '../support/history.js';
import { bundleWorkflows, createTestEnv, testServer, uniqueTaskQueue } from '../support/temporal.js';

const CRASH_WORKER = fileURLToPath(new URL('../fixtures/local-tool/worker.ts', import.meta.url));

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** What each patch marker of a history records (its details as text: the patch id among them), in order. */
function patchMarkers(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const payloads = Object.values(marker.details ?? {}).flatMap((detail) => detail.payloads ?? []);
    return [payloads.map((payload) => Buffer.from(payload.data ?? []).toString('utf8')).join(' ')];
  });
}

const parameters = z.object({ key: z.string() });

describe('local tools in a durable run', () => {
  it('runs a local tool in the workflow task beside a regular one; the model sees both; the history replays', async () => {
    const executed: string[] = [];
    const local = createTool({
      name: 'local_lookup',
      description: 'Looks a key up, locally.',
      parameters,
      activity: { local: true, startToCloseTimeout: '10s' },
      execute: async ({ key }) => {
        executed.push(`local:${key}`);
        return { key, from: 'local' };
      },
    });
    const remote = createTool({
      name: 'lookup',
      description: 'Looks a key up.',
      parameters,
      execute: async ({ key }) => {
        executed.push(`remote:${key}`);
        return { key, from: 'activity' };
      },
    });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        {
          toolCalls: [
            { toolName: 'local_lookup', input: { key: 'a' }, toolCallId: 'l1' },
            { toolName: 'lookup', input: { key: 'b' }, toolCallId: 'r1' },
          ],
        },
        { toolCalls: [{ toolName: 'local_lookup', input: { key: 'c' }, toolCallId: 'l2' }] },
        { text: 'done' },
      ],
    });
    const agent = new Agent({ name: 'local-mixed', instructions: 'Test.', model, tools: [local, remote] });
    const history = await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('local-mixed', 'go');
      const result = await run.result();
      expect(result.text).toBe('done');
      expect(result.toolResults.map((r) => [r.toolCallId, r.output])).toEqual([
        ['l1', { type: 'json', value: { key: 'a', from: 'local' } }],
        ['r1', { type: 'json', value: { key: 'b', from: 'activity' } }],
        ['l2', { type: 'json', value: { key: 'c', from: 'local' } }],
      ]);
      await recordHistory('local-tools-mixed', env, run.handle.workflowId);
      return await run.handle.fetchHistory();
    });
    expect(executed.sort()).toEqual(['local:a', 'local:c', 'remote:b']);
    // The model's last request carried every result.
    expect([...toolResultsSeen(model.requests[2]).keys()]).toEqual(['l1', 'r1', 'l2']);
    // One executeTool activity (the regular tool); the local calls are local activity markers.
    expect(scheduledActivities(history).filter((type) => type === 'executeTool')).toHaveLength(1);
    expect(activityCounts(history)).toEqual({ describeAgent: 1, generate: 3, executeTool: 3 });
    // A protocol-4 run asks one patch, once: the release's (v0.3.0's `localTools` is asked only on earlier protocols).
    expect(patchMarkers(history).filter((details) => details.includes(PATCHES.v0_4))).toHaveLength(1);
    expect(patchMarkers(history).filter((details) => details.includes(LEGACY_PATCHES.localTools))).toHaveLength(0);
    const workflowBundle = await bundleWorkflows(workflowsPath());
    await expect(Worker.runReplayHistory({ workflowBundle }, history)).resolves.toBeUndefined();
  });

  it('an agent default runs its tools locally; a tool that needs approval opts out and runs after approval', async () => {
    const plain = createTool({ name: 'plain', description: 'A plain tool.', parameters, execute: ({ key }) => key });
    const send = createTool({
      name: 'send',
      description: 'Sends. Needs approval.',
      parameters,
      needsApproval: true,
      activity: { local: false },
      execute: ({ key }) => `sent ${key}`,
    });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { toolCalls: [{ toolName: 'plain', input: { key: 'p' }, toolCallId: 'p1' }] },
        { toolCalls: [{ toolName: 'send', input: { key: 's' }, toolCallId: 's1' }] },
        { text: 'done' },
      ],
    });
    const agent = new Agent({
      name: 'local-default',
      instructions: 'Test.',
      model,
      tools: [plain, send],
      activity: { tools: { local: true } },
    });
    const history = await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('local-default', 'go');
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
      await run.approve('s1');
      expect((await run.result()).toolResults.map((r) => r.output)).toEqual([
        { type: 'text', value: 'p' },
        { type: 'text', value: 'sent s' },
      ]);
      await recordHistory('local-tools-agent-default-approval', env, run.handle.workflowId);
      return await run.handle.fetchHistory();
    });
    // `send` ran as an activity after its approval; `plain` as a local activity.
    expect(scheduledActivities(history).filter((type) => type === 'executeTool')).toHaveLength(1);
    expect(activityCounts(history)).toMatchObject({ executeTool: 2 });
    await expect(
      Worker.runReplayHistory({ workflowBundle: await bundleWorkflows(workflowsPath()) }, history),
    ).resolves.toBeUndefined();
  });
});

describe('a worker killed while a local tool runs', () => {
  let bundlePath: string;
  beforeAll(async () => {
    bundlePath = join(mkdtempSync(join(tmpdir(), 'durable-agent-bundle-')), 'workflows.js');
    writeFileSync(bundlePath, (await bundleWorkflows(workflowsPath())).code);
  });

  async function startWorker(taskQueue: string, sideEffects: string): Promise<ChildProcess> {
    const child = fork(CRASH_WORKER, [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: testServer().address,
        TASK_QUEUE: taskQueue,
        SIDE_EFFECTS: sideEffects,
        WORKFLOW_BUNDLE: bundlePath,
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`local-tool worker exited early (${code})`)));
    });
    return child;
  }

  const lines = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];

  async function kill(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  it('runs the tool again on the next worker, completes the run, and its history replays', async () => {
    const taskQueue = uniqueTaskQueue('local-crash');
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log');
    const client = new AgentClient({ client: env.client, taskQueue });
    let worker = await startWorker(taskQueue, sideEffects);
    try {
      const run = await client.start('local-crashy', 'go', { workflow: { workflowExecutionTimeout: '2 minutes' } });
      await expect.poll(() => lines(sideEffects).length, { timeout: 30_000, interval: 50 }).toBe(1);
      await kill(worker);
      worker = await startWorker(taskQueue, sideEffects);
      const result = await run.result();
      expect(result.text).toBe('all done');
      const log = lines(sideEffects);
      // It ran again from the start (no checkpoint, no marker), with the same idempotency key, and finished once.
      const starts = log.filter((l) => l.startsWith('slow-start'));
      expect(starts).toHaveLength(2);
      expect(new Set(starts.map((l) => l.split(' ')[2])).size).toBe(1);
      expect(log.filter((l) => l.startsWith('slow-end'))).toHaveLength(1);
      expect(result.toolResults.map((r) => r.output)).toEqual([{ type: 'text', value: 'slow done' }]);
      await recordHistory('local-tools-worker-killed', env, run.handle.workflowId);
      const history = await run.handle.fetchHistory();
      expect(scheduledActivities(history).filter((type) => type === 'executeTool')).toHaveLength(0);
      expect(activityCounts(history)).toMatchObject({ executeTool: 1 });
      // The first workflow task that ran the tool timed out with the worker.
      expect(history.events?.some((event) => event.workflowTaskTimedOutEventAttributes)).toBe(true);
      await expect(
        Worker.runReplayHistory({ workflowBundle: await bundleWorkflows(workflowsPath()) }, history),
      ).resolves.toBeUndefined();
    } finally {
      await kill(worker);
    }
  });
});
