// Runs started on earlier releases finish on this one. A worker of each frozen release's source starts four runs
// and is killed while they wait for approval, run a tool, make a model call between steps, and wait after a
// continue-as-new; a worker of the current code then replays their histories and finishes them, each side effect
// exactly once.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { killChild as kill, lines, startChildWorker } from '../support/child-worker.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const WORKER = fileURLToPath(new URL('../fixtures/upgrade/worker.ts', import.meta.url));
/** Frozen sources in test/fixtures/releases/: runs started on any of them may still be open when this one ships. */
const PREVIOUS_RELEASES = ['v0.1.0', 'v0.2.0'];

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

interface Workspace {
  taskQueue: string;
  sideEffects: string;
  releaseFile: string;
}

/** Starts a worker of `release` in a child process (it bundles its own workflow code). */
function startWorker(release: string, ws: Workspace): Promise<ChildProcess> {
  return startChildWorker(WORKER, {
    TASK_QUEUE: ws.taskQueue,
    SIDE_EFFECTS: ws.sideEffects,
    RELEASE_FILE: ws.releaseFile,
    RELEASE: release,
  });
}

async function eventually(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function hasEvent(run: AgentRun, predicate: (e: { type: string; step?: number }) => boolean) {
  for await (const event of run.events({ pollIntervalMs: 100 })) {
    if (predicate(event)) return true;
    if (event.type === 'approval-requested' || event.type === 'finished') break;
  }
  return false;
}

describe.each(PREVIOUS_RELEASES)('upgrade from %s', (PREVIOUS_RELEASE) => {
  it('finishes runs started on the previous release: waiting for approval, mid-tool, between steps, after continue-as-new', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'durable-agent-upgrade-'));
    const ws: Workspace = {
      taskQueue: uniqueTaskQueue('upgrade'),
      sideEffects: join(dir, 'side-effects.log'),
      releaseFile: join(dir, 'release'),
    };
    const client = new AgentClient({ client: env.client, taskQueue: ws.taskQueue });
    const start = (input: string, historyEventBudget?: number) =>
      client.start('upgrade', input, {
        ...(historyEventBudget ? { historyEventBudget } : {}),
        workflow: { workflowExecutionTimeout: '3 minutes' },
      });

    let worker = await startWorker(PREVIOUS_RELEASE, ws);
    const approve = await start('approve');
    const midTool = await start('mid-tool');
    const between = await start('between-steps');
    // A small event budget: the run continues as new after its first step, still on the previous release.
    const continued = await start('continued', 20);
    try {
      await eventually(
        'approval pending on the old worker',
        async () => (await approve.state()).pendingApprovals.length === 1,
      );
      await eventually('slow_job running on the old worker', () =>
        lines(ws.sideEffects).some((l) => l === `${PREVIOUS_RELEASE} slow_job-start report attempt=1`),
      );
      await eventually('the second model call in flight', () =>
        lines(ws.sideEffects).some((l) => l === `${PREVIOUS_RELEASE} quick 1`),
      );
      await eventually('approval pending after continue-as-new', async () => {
        const state = await continued.state();
        return state.pendingApprovals.length === 1;
      });
      expect(await hasEvent(continued, (e) => e.type === 'continued-as-new')).toBe(true);

      await kill(worker);
      worker = await startWorker('current', ws);
      writeFileSync(ws.releaseFile, 'go');

      await approve.approve('w1', { approver: 'upgrade-test' });
      await continued.approve('w2', { approver: 'upgrade-test' });

      const results = await Promise.all([approve, midTool, between, continued].map((run) => run.result()));
      expect(results.map((r) => r.text)).toEqual([
        'approve done',
        'mid-tool done',
        'between-steps done',
        'continued done',
      ]);
      expect(results[0]!.approvals).toMatchObject([{ toolCallId: 'w1', approved: true, approver: 'upgrade-test' }]);
      expect(results[3]!.approvals).toMatchObject([{ toolCallId: 'w2', approved: true }]);

      // Every side effect happened exactly once, on the worker that was alive at the time.
      const effects = lines(ws.sideEffects);
      const count = (suffix: string) => effects.filter((l) => l.endsWith(suffix)).length;
      expect(count(' guarded_write /etc/motd')).toBe(1);
      expect(count(' guarded_write /srv/app.conf')).toBe(1);
      expect(effects).toContain('current guarded_write /etc/motd');
      expect(count(' slow_job-end report')).toBe(1);
      expect(effects).toContain('current slow_job-end report');
      // between-steps: quick 1 on the old worker, quick 2 on the new one; continued: both on the old worker.
      expect(effects.filter((l) => / quick 1$/.test(l))).toHaveLength(2);
      expect(effects.filter((l) => / quick 2$/.test(l))).toHaveLength(2);
      expect(effects).toContain('current quick 2');
    } finally {
      await kill(worker);
    }
  });
});
