// After every worker of a run's task queue has stopped, what Temporal answers a query or an update ("no poller seen
// for task queue recently", gRPC FAILED_PRECONDITION) reaches the caller as the documented NoWorkerError, not as a
// raw ServiceError, and within the documented wait.
import { setTimeout as delay } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssistant } from '../../examples/agents.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { NoWorkerError } from '../../src/client/errors/no-worker-error.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const REQUEST_TIMEOUT_MS = 6_000;
const EMAIL_PROMPT = 'Check the current weather in Paris and email "Paris weather update" to team@example.com.';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

async function rejection(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  throw new Error('expected a rejection');
}

describe('a run whose workers have all stopped', () => {
  it('answers state() and approve() with NoWorkerError', { timeout: 120_000 }, async () => {
    const taskQueue = uniqueTaskQueue('workers-stopped');
    // A deadline shorter than the default (20 s): Temporal answers relative to the caller's deadline either way.
    const client = new AgentClient({ client: env.client, taskQueue, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const { run, token } = await withAgentWorker(
      env,
      [createAssistant('offline/demo')],
      async ({ start }) => {
        const started = await start('assistant', EMAIL_PROMPT);
        for (let i = 0; (await started.state()).pendingApprovals.length === 0; i++) {
          if (i > 200) throw new Error('the run never asked for approval');
          await delay(50);
        }
        const [pending] = (await started.state()).pendingApprovals;
        return { run: client.getRun(started.id), token: pending!.token };
      },
      { taskQueue },
    );
    try {
      // A few seconds after the last poll Temporal answers a query itself, a second before the caller's deadline:
      // "no poller seen for task queue recently, worker may be down" (gRPC FAILED_PRECONDITION).
      await delay(5_000);
      const state = await rejection(run.state());
      expect(NoWorkerError.isInstance(state.error), String(state.error)).toBe(true);
      expect((state.error as Error).message).toContain(
        `nothing answered the state query of run '${run.id}' within ${REQUEST_TIMEOUT_MS / 1000} s`,
      );
      // The documented wait: requestTimeoutMs (20 s by default), or a second less when Temporal answers first.
      expect(state.ms).toBeGreaterThan(REQUEST_TIMEOUT_MS - 2_000);
      expect(state.ms).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);

      const approve = await rejection(run.approve('offline-call-1', { ...(token ? { token } : {}) }));
      expect(NoWorkerError.isInstance(approve.error), String(approve.error)).toBe(true);
      expect((approve.error as Error).message).toContain('a worker that starts later may still apply it');
      expect(approve.ms).toBeLessThan(REQUEST_TIMEOUT_MS + 5_000);
      // Without the token at hand, approve() reads it with the state query first: the same answer.
      const untokened = await rejection(run.approve('offline-call-1'));
      expect(NoWorkerError.isInstance(untokened.error), String(untokened.error)).toBe(true);
    } finally {
      await run.handle.terminate('test cleanup');
    }
  });
});
