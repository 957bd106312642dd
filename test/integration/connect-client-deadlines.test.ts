// Client calls that a worker must answer have deadlines and say why nobody answered: "no worker is polling task
// queue X" when none is, and the workers' names when some poll but none answered. An update that timed out stays
// with Temporal and is applied once a worker comes back, as the error says. A long watch collects no abort
// listeners on the caller's signal.
import { getEventListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssistant } from '../../examples/agents.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { NoWorkerError } from '../../src/client/errors/no-worker-error.js';
import { WorkerTimeoutError } from '../../src/client/errors/worker-timeout-error.js';
import { main } from '../../src/cli/main.js';
import { recordHistory, withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, testServer, uniqueTaskQueue } from '../support/temporal.js';

/** Makes the offline model call get_weather, then send_email (which needs approval). */
const EMAIL_PROMPT = 'Check the current weather in Paris and email "Paris weather update" to team@example.com.';
const TIMEOUT_MS = 1_500;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Awaits `promise`, expecting a rejection; returns the error and how long it took. */
async function rejection(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error('expected a rejection');
}

describe('requests to a run that no worker answers', () => {
  it('fail after the deadline, saying no worker is polling the task queue', async () => {
    const taskQueue = uniqueTaskQueue('no-worker');
    const client = new AgentClient({ client: env.client, taskQueue, requestTimeoutMs: TIMEOUT_MS });
    const run = await client.start('assistant', 'hello', { workflow: { workflowExecutionTimeout: '1 minute' } });
    try {
      // [request, call, sent as an update that Temporal keeps]
      const requests: Array<[string, () => Promise<unknown>, boolean]> = [
        ['the state query', () => run.state(), false],
        ['the transcript query', () => run.messages(), false],
        // events() first asks whether the run has a stream (a query), so that is what goes unanswered.
        ['the stream offset query', async () => (await run.events().next()).value, false],
        // Without the request's token the client first reads it from the run: nothing is sent.
        ['the approval', () => run.approve('call-1', { approver: 'ana' }), false],
        ['the approval', () => run.approve('call-1', { approver: 'ana', token: 'seen-earlier' }), true],
        ['the tool result', () => run.submitToolResult('call-1', { ok: true }), true],
      ];
      for (const [request, call, isUpdate] of requests) {
        const { error, ms } = await rejection(call());
        expect(NoWorkerError.isInstance(error), `${request}: ${String(error)}`).toBe(true);
        expect((error as Error).message).toContain(
          `No worker is polling task queue '${taskQueue}' (namespace '${testServer().namespace}'), so nothing ` +
            `answered ${request} of run '${run.id}' within 1.5 s. Start a worker that hosts this agent on task ` +
            `queue '${taskQueue}'`,
        );
        // Updates stay with Temporal, and the message says so; queries do not.
        expect((error as Error).message.includes('a worker that starts later may still apply it')).toBe(isUpdate);
        // Bounded by the deadline plus the two calls that explain it; before, an update waited without end.
        expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
        expect(ms).toBeLessThan(TIMEOUT_MS + 5_000);
      }
    } finally {
      await run.handle.terminate('test cleanup');
    }
  });

  // With model deltas on, the approval update that waited for a worker reaches the new worker in the same activation
  // as the replayed model result that asked for it, and Temporal runs the update's validator first: the run holds it
  // until that result is in (PATCHES.answersAfterModelCall), where before it refused it as Approval.UnknownCall.
  it('after the worker stopped: a timed-out approval is applied once a worker returns', async () => {
    const taskQueue = uniqueTaskQueue('worker-gone');
    const agents = [createAssistant('offline/demo')];
    const client = new AgentClient({ client: env.client, taskQueue, requestTimeoutMs: TIMEOUT_MS });
    const { run, token } = await withAgentWorker(
      env,
      agents,
      async ({ start }) => {
        const started = await start('assistant', EMAIL_PROMPT);
        for (let i = 0; (await started.state()).pendingApprovals.length === 0; i++) {
          if (i > 200) throw new Error('the run never asked for approval');
          await delay(50);
        }
        // The person saw the request (and its token) while a worker was up.
        const [pending] = (await started.state()).pendingApprovals;
        return { run: client.getRun(started.id), token: pending!.token };
      },
      { taskQueue },
    );
    // The worker has shut down, but Temporal may still list it as a poller of the queue for a while.
    const { error } = await rejection(
      run.approve('offline-call-1', { approver: 'ana', reason: 'late but fine', ...(token ? { token } : {}) }),
    );
    expect(WorkerTimeoutError.isInstance(error) || NoWorkerError.isInstance(error), String(error)).toBe(true);
    if (WorkerTimeoutError.isInstance(error)) {
      expect(error.message).toMatch(
        new RegExp(`although 1 worker polls task queue '${taskQueue}' \\(\\d+@[^,]+, last polled [\\d.]+ s ago\\)`),
      );
      expect(error.pollers).toHaveLength(1);
    }
    expect((error as Error).message).toContain('a worker that starts later may still apply it');

    // A worker comes back: the approval nobody answered is applied, once, and the run finishes with it.
    await withAgentWorker(
      env,
      agents,
      async () => {
        const result = await run.result();
        expect(result.approvals).toEqual([
          expect.objectContaining({ toolName: 'send_email', approved: true, approver: 'ana', reason: 'late but fine' }),
        ]);
        expect(result.toolResults.map((r) => r.toolName)).toEqual(['get_weather', 'send_email']);
      },
      { taskQueue },
    );

    // The run has ended: with the worker gone again, result() reads it from the run's history.
    const late = await run.result();
    expect(late.toolResults.map((r) => r.toolName)).toEqual(['get_weather', 'send_email']);
    await recordHistory('approval-after-worker-gone', env, run.id);
  }, 150_000);
});

describe('requests to a run whose worker does not answer', () => {
  it('fail after the deadline, naming the workers that poll the queue', async () => {
    const taskQueue = uniqueTaskQueue('stuck');
    const client = new AgentClient({ client: env.client, taskQueue, requestTimeoutMs: TIMEOUT_MS });
    const run = await client.start('assistant', 'hello', { workflow: { workflowExecutionTimeout: '1 minute' } });
    // A stuck worker: it polls the run's queue, takes the run's first task, and never answers anything.
    // (A long poll needs a deadline, as every worker gives it.)
    const poll = env.client.connection.withDeadline(Date.now() + 10_000, () =>
      env.client.workflowService.pollWorkflowTaskQueue({
        namespace: testServer().namespace,
        taskQueue: { name: taskQueue },
        identity: 'stuck-worker@test',
      }),
    );
    try {
      expect((await poll).taskToken?.length).toBeGreaterThan(0);
      const { error } = await rejection(run.state());
      expect(WorkerTimeoutError.isInstance(error), String(error)).toBe(true);
      expect((error as WorkerTimeoutError).pollers.map((p) => p.identity)).toEqual(['stuck-worker@test']);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^No answer to the state query of run '${run.id}' within 1\\.5 s, although 1 worker polls task queue ` +
            `'${taskQueue}' \\(stuck-worker@test, last polled [\\d.]+ s ago\\)\\. A worker may be busy, stuck or just restarted`,
        ),
      );
    } finally {
      await run.handle.terminate('test cleanup');
    }
  });
});

describe('a long watch', () => {
  it('watches for seconds and leaves no abort listener behind on the signal', async () => {
    // A run of 0.4.0 is watched through its stream (long polls on the server, one shared subscription), not by
    // polling a query: the watch goes on for seconds, and the signal never collects listeners.
    const temporal = new Client({ connection: env.connection, namespace: testServer().namespace });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      await withAgentWorker(env, [createAssistant('offline/demo')], async ({ taskQueue, start }) => {
        const client = new AgentClient({ client: temporal, taskQueue });
        const started = await start('assistant', EMAIL_PROMPT);
        const run = client.getRun(started.id);
        const controller = new AbortController();
        let approvalSeen = false;
        const watching = (async () => {
          for await (const event of run.events({ signal: controller.signal, pollIntervalMs: 2 })) {
            if (event.type === 'approval-requested') approvalSeen = true;
          }
        })();
        const listeners: number[] = [];
        const until = performance.now() + 3_000;
        while (!approvalSeen || performance.now() < until) {
          listeners.push(getEventListeners(controller.signal, 'abort').length);
          await delay(20);
        }
        // One listener at most (the current poll's), however long the watch runs.
        expect(Math.max(...listeners)).toBeLessThanOrEqual(1);
        const abortedAt = performance.now();
        controller.abort();
        await watching;
        expect(performance.now() - abortedAt).toBeLessThan(1_000);
        expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

        // The CLI's watch on the same run, for more than ten polls: no pile-up, and exit 130 on Ctrl-C.
        const interrupt = new AbortController();
        let stdout = '';
        const cli = main(['watch', run.id], {
          stdout: { write: (text: string) => (stdout += text) },
          stderr: { write: () => true },
          env: { NO_COLOR: '1' },
          client,
          signal: interrupt.signal,
        });
        const cliUntil = performance.now() + 2_000;
        while (!stdout.includes(' APPROVAL NEEDED ') || performance.now() < cliUntil) await delay(50);
        expect(getEventListeners(interrupt.signal, 'abort').length).toBeLessThanOrEqual(1);
        interrupt.abort();
        expect(await cli).toBe(130);
        expect(stdout).toContain(' APPROVAL NEEDED  send_email');
        await started.handle.terminate('test cleanup');
      });
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
