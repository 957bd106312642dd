// Runs started on earlier releases finish on this one. Each previous release is built from its commit
// (test/fixtures/upgrade/releases.json, materialized by test/support/releases.ts); a worker of it starts runs and is
// killed while they wait for approval, run a tool, make a model call between steps, and wait after a
// continue-as-new, and (releases with MCP) while two MCP calls wait on their server's question: one whose call the
// old worker already let go (the run waits for the answer without it) and one the old worker still held open. A
// worker of the current code then replays their histories and finishes them, the questions answered through the
// client, each side effect exactly once. The releases run concurrently, each on its own task queue.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import type { RunEvent } from '../../src/protocol/index.js';
import { recordedActivities } from '../support/activity-history.js';
import { activityCounts } from '../support/agent-harness.js';
import { killChild as kill, lines, startChildWorker } from '../support/child-worker.js';
import { materializeRelease, previousReleases, releaseHasFile } from '../support/releases.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const WORKER = fileURLToPath(new URL('../fixtures/upgrade/worker.ts', import.meta.url));
const COMMON = 'waiting for approval, mid-tool, between steps, after continue-as-new';
/** Runs started on any of these may still be open when this code ships. Releases with MCP also ask questions. */
const PREVIOUS_RELEASES = previousReleases().map((release) => {
  const mcp = releaseHasFile(release, 'src/mcp/configuration.ts');
  return { ...release, mcp, scenarios: mcp ? `${COMMON}, waiting on an MCP question (let go, held)` : COMMON };
});
/**
 * The old worker holds an MCP call open this long for an answer, then lets it go and the run waits without it: long
 * enough that the "held" run is killed while held, short enough to keep the test quick.
 */
const OLD_HOLD_MS = 8_000;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
/** Every worker started, so a test that timed out (its `finally` still waiting) leaves none behind. */
const workers = new Set<ChildProcess>();
afterAll(async () => {
  await Promise.all([...workers].map((worker) => kill(worker)));
  await env?.teardown();
});

interface Workspace {
  taskQueue: string;
  sideEffects: string;
  releaseFile: string;
}

/** Starts a worker of `release` (`current`, or a materialized release's directory) in a child process. */
async function startWorker(release: string, ws: Workspace, releaseDir?: string): Promise<ChildProcess> {
  const worker = await startChildWorker(WORKER, {
    TASK_QUEUE: ws.taskQueue,
    SIDE_EFFECTS: ws.sideEffects,
    RELEASE_FILE: ws.releaseFile,
    RELEASE: release,
    ...(releaseDir ? { RELEASE_DIR: releaseDir, HOLD_MS: String(OLD_HOLD_MS) } : {}),
  });
  workers.add(worker);
  return worker;
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

/** The results the run's `executeTool` activities completed with, in order (none while a call is open). */
async function toolResults(run: AgentRun): Promise<unknown[]> {
  return recordedActivities(await run.handle.fetchHistory())
    .filter((a) => a.type === 'executeTool' && a.result !== undefined)
    .map((a) => a.result);
}

/**
 * The run's result once it finishes, failing fast (instead of waiting for the run's timeout) if it puts a question to
 * people other than the one answered: a re-issued or retried call must be answered from the recorded question.
 */
async function resultWithoutNewQuestion(run: AgentRun, answeredId: string) {
  let finished = false;
  const watch = (async () => {
    while (!finished) {
      const others = (await run.state()).pendingElicitations.filter((p) => p.id !== answeredId);
      if (others.length > 0 && !finished) {
        throw new Error(
          `${run.id} asked again as ${others.map((p) => p.id).join(', ')} after ${answeredId} was answered`,
        );
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  })();
  try {
    // The watch ends only by throwing or once the result is in: it never supplies the result itself.
    return await Promise.race([run.result(), watch.then(() => new Promise<never>(() => undefined))]);
  } finally {
    finished = true;
    await watch.catch(() => undefined);
  }
}

async function allEvents(run: AgentRun): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

describe.concurrent('upgrade', () => {
  for (const release of PREVIOUS_RELEASES) {
    it(
      `finishes runs started on ${release.version}: ${release.scenarios}`,
      // Four releases' workers bundle their workflows at once on a shared machine.
      { timeout: 240_000 },
      async ({ expect }) => {
        const PREVIOUS_RELEASE = release.version;
        const releaseDir = materializeRelease(release);
        const hasMcp = release.mcp;
        // worker.ts hosts the MCP agent when this file is in the materialized tree: the same test as the manifest.
        expect(existsSync(join(releaseDir, 'src/mcp/configuration.ts'))).toBe(hasMcp);
        const dir = mkdtempSync(join(tmpdir(), 'durable-agent-upgrade-'));
        const ws: Workspace = {
          taskQueue: uniqueTaskQueue('upgrade'),
          sideEffects: join(dir, 'side-effects.log'),
          releaseFile: join(dir, 'release'),
        };
        const client = new AgentClient({ client: env.client, taskQueue: ws.taskQueue });
        const start = (input: string, historyEventBudget?: number, agent = 'upgrade') =>
          client.start(agent, input, {
            ...(historyEventBudget ? { historyEventBudget } : {}),
            workflow: { workflowExecutionTimeout: '3 minutes' },
          });
        const pendingQuestion = async (run: AgentRun) => (await run.state()).pendingElicitations.length === 1;

        let worker = await startWorker(PREVIOUS_RELEASE, ws, releaseDir);
        const approve = await start('approve');
        const midTool = await start('mid-tool');
        const between = await start('between-steps');
        // A small event budget: the run continues as new after its first step, still on the previous release.
        const continued = await start('continued', 20);
        const parked = hasMcp ? await start('parked', undefined, 'asker') : undefined;
        let held: AgentRun | undefined;
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
          if (parked) {
            // The old worker stopped holding the call: its activity ended "pending" and the run waits for the answer.
            await eventually(
              'the parked MCP call let go by the old worker',
              async () => (await pendingQuestion(parked)) && (await toolResults(parked)).length === 1,
            );
            expect(await toolResults(parked)).toMatchObject([{ kind: 'elicitation-pending' }]);
            held = await start('held', undefined, 'asker');
            await eventually('the held MCP call asking on the old worker', () => pendingQuestion(held!));
          }

          await kill(worker);
          // Killed while held: no attempt of its call had ended (the old worker's hold had not run out).
          if (held) expect(await toolResults(held)).toEqual([]);
          worker = await startWorker('current', ws);
          writeFileSync(ws.releaseFile, 'go');

          await approve.approve('w1', { approver: 'upgrade-test' });
          await continued.approve('w2', { approver: 'upgrade-test' });
          const asked = parked && held ? [parked, held] : [];
          const questionIds: string[] = [];
          for (const run of asked) {
            const [question] = (await run.state()).pendingElicitations;
            questionIds.push(question!.id);
            await run.respondToElicitation(question!.id, { action: 'accept', content: { name: 'Katherine' } });
          }

          const [results, askedResults] = await Promise.all([
            Promise.all([approve, midTool, between, continued].map((run) => run.result())),
            Promise.all(asked.map((run, i) => resultWithoutNewQuestion(run, questionIds[i]!))),
          ]);
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

          for (const [i, run] of asked.entries()) {
            const to = run === parked ? 'parked' : 'held';
            expect(askedResults[i]!.text).toContain(`transferred to ${to}, signed by Katherine`);
            // The old worker's server asked, then the new worker's (the re-issued or retried call) got the recorded
            // answer: the money moved once, on the new worker.
            expect(effects.filter((l) => l.includes(` transfer-asked ${to}`))).toEqual([
              `${PREVIOUS_RELEASE} transfer-asked ${to}`,
              `current transfer-asked ${to}`,
            ]);
            expect(effects.filter((l) => l.includes(' transfer-done '))).toContain(
              `current transfer-done ${to} Katherine`,
            );
            expect(effects.filter((l) => l.includes(` transfer-done ${to} `))).toHaveLength(1);
            // The person was asked once and answered once.
            const events = await allEvents(run);
            expect(events.filter((e) => e.type === 'elicitation-requested')).toHaveLength(1);
            expect(events.filter((e) => e.type === 'elicitation-answered')).toMatchObject([
              { type: 'elicitation-answered', action: 'accept' },
            ]);
            // parked: its call ended on the old worker and was issued again; held: one call, retried on the new worker.
            expect(activityCounts(await run.handle.fetchHistory()).executeTool).toBe(run === parked ? 2 : 1);
          }
        } finally {
          await kill(worker);
        }
      },
    );
  }
});
