// Tests of the support agent, both on a real Temporal dev server that the test starts (the Temporal CLI is
// installed into your user cache the first time). The first scripts the model, so it checks exactly what the
// agent does with given tool calls; the second runs the agent end to end offline, as `npm start` does.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from 'durable-agent/client';
import { ScriptedLanguageModel, startDevServer, type DevServer } from 'durable-agent/testing';
import { createAgentWorker } from 'durable-agent/worker';
import { createSupportAgent } from '../src/agents.js';
import { follow } from '../src/client.js';

let server: DevServer;
let client: AgentClient;

beforeAll(async () => {
  server = await startDevServer();
  client = await AgentClient.connect({ address: server.address, namespace: server.namespace });
});

afterAll(async () => {
  await client?.temporal.connection.close();
  await server?.stop();
});

/** A worker on its own task queue, so tests do not take each other's runs. */
async function workerFor(agent: ReturnType<typeof createSupportAgent>) {
  const taskQueue = `test-${randomUUID()}`;
  const worker = await createAgentWorker({
    address: server.address,
    namespace: server.namespace,
    taskQueue,
    agents: [agent],
  });
  return { worker, taskQueue };
}

describe('support agent', () => {
  it('refunds only after a person approves (scripted model)', async () => {
    const model = new ScriptedLanguageModel({
      steps: [
        { toolCalls: [{ toolName: 'refund_order', input: { orderId: 'A-1001', reason: 'broken' } }] },
        { text: 'Refunded order A-1001.' },
      ],
    });
    const { worker, taskQueue } = await workerFor(createSupportAgent(model));
    await worker.runUntil(async () => {
      const run = await client.start('support', 'Refund order A-1001, it arrived broken', { taskQueue });
      const asked: string[] = [];
      const answer = await follow(run, async (toolName) => {
        asked.push(toolName);
        return true;
      });
      expect(asked).toEqual(['refund_order']);
      expect(answer).toBe('Refunded order A-1001.');
      // The model saw the tool's result, which it only gets once the refund ran.
      const [, second] = model.requests;
      expect(JSON.stringify(second?.prompt)).toContain('"refunded":true');
    });
  });

  it('tells the model when the refund is denied (scripted model)', async () => {
    const model = new ScriptedLanguageModel({
      steps: [
        { toolCalls: [{ toolName: 'refund_order', input: { orderId: 'A-1001', reason: 'changed my mind' } }] },
        { text: 'The refund was not approved.' },
      ],
    });
    const { worker, taskQueue } = await workerFor(createSupportAgent(model));
    await worker.runUntil(async () => {
      const run = await client.start('support', 'Refund order A-1001', { taskQueue });
      expect(await follow(run, async () => false)).toBe('The refund was not approved.');
      expect(JSON.stringify(model.requests[1]?.prompt)).toContain('Denied at the terminal.');
    });
  });

  it('runs end to end offline with the offline/demo model', async () => {
    const { worker, taskQueue } = await workerFor(createSupportAgent('offline/demo'));
    await worker.runUntil(async () => {
      const run = await client.start('support', 'Refund order A-1001, it arrived broken', { taskQueue });
      const asked: string[] = [];
      const answer = await follow(run, async (toolName) => {
        asked.push(toolName);
        return true;
      });
      expect(asked).toEqual(['refund_order']);
      expect(answer.length).toBeGreaterThan(0);
      expect((await run.state()).status).toBe('completed');
    });
  });
});
