// An MCP question outlives the worker that asked it: the worker holding the call is killed while nobody has
// answered; the answer is given (by signal, while no worker runs); a new worker's retried call asks the same question
// again and gets the recorded answer, which reaches the server. The question is put to people once.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import type { RunEvent } from '../../src/protocol/index.js';
import { activityCounts, recordHistory } from '../support/agent-harness.js';
import { killChild as kill, startChildWorker } from '../support/child-worker.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const WORKER = fileURLToPath(new URL('../fixtures/mcp/durable-worker.ts', import.meta.url));

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

function startWorker(taskQueue: string): Promise<ChildProcess> {
  return startChildWorker(WORKER, { TASK_QUEUE: taskQueue, HOLD_MS: '60000' });
}

describe('MCP elicitation across a worker crash', () => {
  it('delivers an answer given while no worker runs to the re-issued call of a new worker', async () => {
    const taskQueue = uniqueTaskQueue('mcp-crash');
    const client = new AgentClient({ client: env.client, taskQueue });
    let worker = await startWorker(taskQueue);
    const run = await client.start('asker', 'who are you?', { workflow: { workflowExecutionTimeout: '3 minutes' } });
    try {
      await expect.poll(async () => (await run.state()).pendingElicitations.length, { timeout: 30_000 }).toBe(1);
      const [pending] = (await run.state()).pendingElicitations;
      expect(pending!.token).toEqual(expect.any(String));
      await kill(worker);
      // Nobody runs the workflow now: a signal is recorded anyway and applied when a worker replays the run.
      await run.respondToElicitation(
        pending!.id,
        { action: 'accept', content: { name: 'Katherine' } },
        // No worker answers the state query now: the token read before is passed.
        { signal: true, token: pending!.token! },
      );
      worker = await startWorker(taskQueue);
      const result = await run.result();
      expect(result.text).toContain('Katherine');
      expect(result.text).toContain('accept');
      const events: RunEvent[] = [];
      for await (const event of run.events()) events.push(event);
      expect(events.filter((e) => e.type === 'elicitation-requested')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'elicitation-answered')).toHaveLength(1);
      expect(activityCounts(await run.handle.fetchHistory()).executeTool).toBe(1);
      await recordHistory('mcp-elicitation-worker-crash', env, run.id);
    } finally {
      await kill(worker);
    }
  });
});
