// Drill: two workers on one task queue, one of them SIGKILLed every few seconds (and restarted) while 100 runs go
// through. Every run completes; nothing is doubled: the workflow scheduled each tool call once and recorded one
// result for it, and every effect was applied once (tools key their effect by the idempotency key). Tool attempts
// cut short by a kill run again, as at-least-once execution means; the drill counts them.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun, AgentRunResult } from '../../src/client/agent-run.js';
import { workflowsPath } from '../../src/worker/workflow-paths.js';
import { activityCounts } from '../support/agent-harness.js';
import { startDrillServer, type DrillServer } from './support/drill-server.js';

const RUNS = Number(process.env.DRILL_RUNS ?? 100);
const KILL_EVERY_MS = Number(process.env.DRILL_KILL_EVERY_MS ?? 3_000);
const WORKER = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));

let server: DrillServer;
let bundlePath: string;
beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  server = await startDrillServer();
  bundlePath = join(mkdtempSync(join(tmpdir(), 'durable-agent-drill-')), 'workflows.js');
  const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: new DefaultLogger('WARN') });
  writeFileSync(bundlePath, bundle.code);
});
afterAll(async () => {
  await server?.stop();
});

async function startWorker(taskQueue: string, dir: string): Promise<ChildProcess> {
  const child = fork(WORKER, [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      TASK_QUEUE: taskQueue,
      DRILL_DIR: dir,
      WORKFLOW_BUNDLE: bundlePath,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`drill worker exited early (${code})`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe(`drill: ${RUNS} runs on two workers, one SIGKILLed every ${KILL_EVERY_MS / 1000} s`, () => {
  it('completes every run and doubles nothing', async () => {
    const taskQueue = 'drill-kill';
    const dir = mkdtempSync(join(tmpdir(), 'durable-agent-kill-'));
    mkdirSync(join(dir, 'effects'));
    const workers = [await startWorker(taskQueue, dir), await startWorker(taskQueue, dir)];
    const connection = await Connection.connect({ address: server.address });
    const client = new AgentClient({ client: new Client({ connection }), taskQueue });
    let kills = 0;
    let done = false;
    const t0 = performance.now();
    try {
      const runs = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          client.start('ledger', `entry ${i}`, {
            workflowId: `drill-kill-${i}-${Date.now()}`,
            workflow: { workflowExecutionTimeout: '10 minutes' },
          }),
        ),
      );
      // Kill the two workers in turn while runs are in flight; each comes back at once, as an orchestrator would.
      const killer = (async () => {
        for (let victim = 0; !done; victim = 1 - victim) {
          await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
          if (done) break;
          await kill(workers[victim]!);
          kills++;
          workers[victim] = await startWorker(taskQueue, dir);
        }
      })();
      const settled = await Promise.allSettled(runs.map((run) => resultRetryingQueries(run)));
      const failed = settled.filter((s) => s.status === 'rejected');
      if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
      const results = settled.map((s) => (s as PromiseFulfilledResult<AgentRunResult>).value);
      const totalMs = performance.now() - t0;
      done = true;
      await killer;

      expect(results.every((r) => r.text === 'booked')).toBe(true);
      expect(kills).toBeGreaterThanOrEqual(1);
      for (const result of results) {
        expect(result.toolResults.map((r) => [r.toolCallId, r.output])).toEqual([
          ['debit', { type: 'text', value: 'debit 5' }],
          ['credit', { type: 'text', value: 'credit 5' }],
        ]);
      }
      // Every effect applied exactly once: one file per tool call, and no execution found its effect missing twice.
      expect(readdirSync(join(dir, 'effects'))).toHaveLength(RUNS * 2);
      const log = existsSync(join(dir, 'executions.log'))
        ? readFileSync(join(dir, 'executions.log'), 'utf8').trim().split('\n')
        : [];
      const applied = log.filter((l) => l.includes('applied=true')).map((l) => l.split(' ')[1]);
      expect(new Set(applied).size).toBe(applied.length);
      // The workflow scheduled each tool call once and each step's model call once.
      for (const run of runs) {
        expect(activityCounts(await run.handle.fetchHistory())).toEqual({
          describeAgent: 1,
          generate: 3,
          executeTool: 2,
        });
      }
      const starts = log.filter((l) => l.startsWith('start '));
      const retried = starts.filter((l) => !l.includes('attempt=1 '));
      const endedTwice = log.filter((l) => l.includes('applied=false')).length;
      console.log(
        JSON.stringify({
          drill: 'kill',
          runs: RUNS,
          kills,
          totalMs: Math.round(totalMs),
          toolExecutions: starts.length,
          toolCalls: RUNS * 2,
          reexecutedAfterKill: retried.length,
          finishedAgainButNotApplied: endedTwice,
          resultQueryTimeouts: queryTimeouts,
        }),
      );
    } finally {
      done = true;
      await Promise.all(workers.map(kill));
      await connection.close();
    }
  });
});

let queryTimeouts = 0;

/**
 * `run.result()` reads the transcript with a query. Right after a SIGKILL, a query routed to the dead worker's sticky
 * queue times out (DEADLINE_EXCEEDED) until the server gives up on that worker; a client retries it.
 */
async function resultRetryingQueries(run: AgentRun): Promise<AgentRunResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run.result();
    } catch (error) {
      const text = `${String(error)} ${String((error as Error).cause)}`;
      if (!text.includes('DEADLINE_EXCEEDED') || attempt >= 5) throw error;
      queryTimeouts++;
    }
  }
}
