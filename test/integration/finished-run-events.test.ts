// A finished run's events and state are read with every worker stopped, from the record the run kept in its memo as
// it ended: completed (with an approval), failed, cancelled during an approval, with encrypted payloads, and after
// continue-as-new. Each is compared event by event with the event query's answer taken while a worker was up.
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { NoWorkerError } from '../../src/client/errors/no-worker-error.js';
import { throughWorker } from '../../src/client/through-worker.js';
import { createPayloadCodec } from '../../src/codec/create-payload-codec.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import {
  FINAL_RECORD_MEMO_KEY,
  ZERO_USAGE,
  MAX_FINAL_RECORD_BYTES,
  finalRunRecord,
  jsonBytes,
  type RunEvent,
  type RunState,
} from '../../src/protocol/index.js';
import { eventsQuery, stateQuery } from '../../src/protocol/run-messages.js';
import { ToolDeniedError } from '../../src/tool/errors/tool-denied-error.js';
import { createTool } from '../../src/tool/tool.js';
import { recordHistory, withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** What the event and state queries answer (a worker must be up), from the chain's current execution. */
async function queried(client: Client, run: AgentRun): Promise<{ events: RunEvent[]; state: RunState }> {
  const execution = client.workflow.getHandle(run.id, (await run.handle.describe()).runId);
  return { events: await execution.query(eventsQuery, 0, 10_000), state: await execution.query(stateQuery) };
}

async function collect(run: AgentRun, after?: number): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events(after !== undefined ? { after } : {})) events.push(event);
  return events;
}

/** Proves nothing answers the run any more: a query through the client's worker deadline gets NoWorkerError. */
async function expectNoWorker(run: AgentRun): Promise<void> {
  const probe = throughWorker(run.handle, () => run.handle.query(stateQuery), {
    request: 'the state query',
    timeoutMs: 1_500,
    pending: false,
  });
  await expect(probe).rejects.toSatisfy((error) => NoWorkerError.isInstance(error));
}

const shout = createTool({
  name: 'shout',
  description: 'Shouts.',
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => text.toUpperCase(),
});
const guarded = createTool({
  name: 'guarded',
  description: 'Needs approval.',
  parameters: z.object({}),
  needsApproval: true,
  execute: async () => 'ran',
});
const forbidden = createTool({
  name: 'forbidden',
  description: 'Never allowed.',
  parameters: z.object({}),
  execute: async () => {
    throw new ToolDeniedError({ toolName: 'forbidden', message: 'Not on your plan.', code: 'TOOL_PLAN_REQUIRED' });
  },
});

function approver(): Agent {
  return new Agent({
    name: 'approver',
    instructions: 'Ask first.',
    model: new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'guarded', input: {}, toolCallId: 'g1' }] },
      { toolCalls: [{ toolName: 'shout', input: { text: 'done' }, toolCallId: 's1' }] },
      { text: 'All done.' },
    ]),
    tools: [guarded, shout],
  });
}

describe('events() and state() of a finished run with every worker stopped', () => {
  it('reads a completed (approved), a failed and a cancelled-during-approval run from their records', async () => {
    const taskQueue = uniqueTaskQueue('final-events');
    const denier = new Agent({
      name: 'denier',
      instructions: '',
      model: new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'forbidden', input: {}, toolCallId: 'x1' }] }]),
      tools: [forbidden],
    });
    const waiter = new Agent({
      name: 'waiter',
      instructions: '',
      model: new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'guarded', input: {}, toolCallId: 'w1' }] }]),
      tools: [guarded],
    });
    const client = new AgentClient({ client: env.client, taskQueue, requestTimeoutMs: 1_500 });
    const seen = await withAgentWorker(
      env,
      [approver(), denier, waiter],
      async ({ start }) => {
        const completed = await start('approver', 'do the guarded thing');
        await expect.poll(async () => (await completed.state()).pendingApprovals.length).toBe(1);
        await completed.approve('g1');
        await completed.handle.result();
        const failed = await start('denier', 'do the forbidden thing');
        await expect(failed.handle.result()).rejects.toThrow();
        const cancelled = await start('waiter', 'wait for me');
        await expect.poll(async () => (await cancelled.state()).pendingApprovals.length).toBe(1);
        await cancelled.cancel();
        await expect(cancelled.handle.result()).rejects.toThrow();
        await recordHistory('final-record-approved', env, completed.id);
        await recordHistory('final-record-failed', env, failed.id);
        await recordHistory('final-record-cancelled-approval', env, cancelled.id);
        return {
          runs: { completed, failed, cancelled },
          queried: {
            completed: await queried(env.client, completed),
            failed: await queried(env.client, failed),
            cancelled: await queried(env.client, cancelled),
          },
        };
      },
      { taskQueue },
    );
    await expectNoWorker(seen.runs.completed);

    for (const [kind, run] of Object.entries(seen.runs)) {
      const expected = seen.queried[kind as keyof typeof seen.queried];
      const events = await collect(run);
      expect(events.length, kind).toBe(expected.events.length);
      events.forEach((event, i) => expect(event, `${kind} event ${i}`).toEqual(expected.events[i]));
      expect(await run.state(), kind).toEqual(expected.state);
      // The `after` offset is honoured, as by the query.
      expect(await collect(run, 3), kind).toEqual(expected.events.filter((e) => e.seq > 3));
      expect(await collect(client.getRun(run.id)), kind).toEqual(expected.events);
      const record = await run.finalRecord();
      expect(record, kind).toMatchObject({ version: 1, firstSeq: 1, truncated: 0 });
    }
    const types = (events: RunEvent[]) => events.map((e) => e.type);
    expect(types(seen.queried.completed.events)).toContain('approval-requested');
    expect(types(seen.queried.completed.events).at(-1)).toBe('finished');
    const requested = seen.queried.completed.events.find((e) => e.type === 'approval-requested');
    expect(requested && 'token' in requested && typeof requested.token).toBe('string');
    expect(types(seen.queried.failed.events).at(-1)).toBe('failed');
    expect(types(seen.queried.cancelled.events).at(-1)).toBe('cancelled');
    expect(seen.queried.cancelled.state.status).toBe('cancelled');
    expect(seen.queried.failed.state.status).toBe('failed');
    expect(seen.queried.completed.state.status).toBe('completed');
  });

  it('decodes the record with the client codec (it is encrypted in Temporal)', async () => {
    const taskQueue = uniqueTaskQueue('final-events-codec');
    const codec = createPayloadCodec({ encryption: { keyId: 'events-key', key: randomBytes(32) } });
    const codecClient = new Client({
      connection: env.connection,
      namespace: env.namespace,
      dataConverter: { payloadCodecs: [codec] },
    });
    const client = new AgentClient({ client: codecClient, taskQueue, requestTimeoutMs: 1_500 });
    const seen = await withAgentWorker(
      env,
      [approver()],
      async () => {
        const run = await client.start('approver', 'do the guarded thing', {
          workflow: { workflowExecutionTimeout: '2 minutes' },
        });
        await expect.poll(async () => (await run.state()).pendingApprovals.length).toBe(1);
        await run.approve('g1');
        await run.handle.result();
        return { run, ...(await queried(codecClient, run)) };
      },
      { taskQueue, payloadCodec: codec },
    );
    await expectNoWorker(seen.run);
    expect(await collect(seen.run)).toEqual(seen.events);
    expect(await seen.run.state()).toEqual(seen.state);
    // The memo as Temporal holds it is ciphertext: the approval's token is not readable in it.
    const raw = await env.client.workflowService.describeWorkflowExecution({
      namespace: env.namespace ?? 'default',
      execution: { workflowId: seen.run.id },
    });
    const stored = raw.workflowExecutionInfo?.memo?.fields?.[FINAL_RECORD_MEMO_KEY];
    expect(stored?.data?.length).toBeGreaterThan(0);
    const token = seen.events.find((e) => e.type === 'approval-requested');
    const text = Buffer.from(stored!.data!).toString('latin1');
    expect(token && 'token' in token && token.token && text.includes(token.token)).toBe(false);
    expect(text).not.toContain('approval-requested');
  });

  it('follows continue-as-new: the last execution holds the carried events', async () => {
    const taskQueue = uniqueTaskQueue('final-events-can');
    const seen = await withAgentWorker(
      env,
      [approver()],
      async ({ start }) => {
        const run = await start('approver', 'do the guarded thing', { historyEventBudget: 1 });
        await expect.poll(async () => (await run.state()).pendingApprovals.length).toBe(1);
        await run.approve('g1');
        await run.handle.result();
        const { runId, raw } = await run.handle.describe();
        expect(runId).not.toBe(raw.workflowExecutionInfo?.firstRunId);
        return { run, ...(await queried(env.client, run)) };
      },
      { taskQueue },
    );
    await expectNoWorker(seen.run);
    const events = await collect(seen.run);
    expect(events).toEqual(seen.events);
    expect(events.map((e) => e.type)).toContain('continued-as-new');
    expect(await seen.run.state()).toEqual(seen.state);
    expect((await seen.run.finalRecord())?.firstSeq).toBe(seen.events[0]?.seq);
  });

  it('takes no memo set at start under the key for the record: a terminated run still asks a worker', async () => {
    const taskQueue = uniqueTaskQueue('final-events-forged');
    const forgedState: RunState = {
      status: 'completed',
      step: 9,
      usage: ZERO_USAGE,
      pendingApprovals: [],
      pendingToolResults: [],
      pendingElicitations: [],
      runningTools: [],
      messageCount: 99,
      lastEventSeq: 1,
    };
    const forgedEvent = { type: 'finished', text: 'forged', finishReason: 'stop', stopReason: 'completed' } as const;
    const forged = finalRunRecord([{ ...forgedEvent, seq: 1, at: '2026-01-01T00:00:00.000Z' }], forgedState);
    const waiter = new Agent({
      name: 'waiter',
      instructions: '',
      model: new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'guarded', input: {}, toolCallId: 'w1' }] }]),
      tools: [guarded],
    });
    const echo = new Agent({ name: 'echo', instructions: '', model: new ScriptedLanguageModel([{ text: 'real' }]) });
    await withAgentWorker(
      env,
      [waiter, echo],
      async ({ start }) => {
        const memo = { [FINAL_RECORD_MEMO_KEY]: forged };
        const terminated = await start('waiter', 'wait for me', { workflow: { memo } });
        await expect.poll(async () => (await terminated.state()).pendingApprovals.length).toBe(1);
        await terminated.handle.terminate('test done');
        expect((await terminated.handle.describe()).memo?.[FINAL_RECORD_MEMO_KEY]).toEqual(forged);
        expect(await terminated.finalRecord()).toBeUndefined();
        expect((await terminated.state()).status).not.toBe('completed');
        // A run that ends through its own code records over the starter's memo.
        const completed = await start('echo', 'hi', { workflow: { memo } });
        await completed.handle.result();
        const expected = await queried(env.client, completed);
        expect(await collect(completed)).toEqual(expected.events);
        expect(await completed.state()).toEqual(expected.state);
        expect(expected.events.at(-1)).toMatchObject({ type: 'finished', text: 'real' });
      },
      { taskQueue },
    );
  });

  it('keeps the newest events of a log over the byte bound, and says how many it left out', async () => {
    const taskQueue = uniqueTaskQueue('final-events-bound');
    // '€' is 3 UTF-8 bytes: each call's tool-call and tool-result events are ~5.7 KB, 40 calls ~460 KB of events.
    const text = '€'.repeat(1_900);
    const echoTool = createTool({
      name: 'echo',
      description: 'Echoes.',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => text,
    });
    const calls = Array.from({ length: 40 }, (_, i) => ({ toolName: 'echo', input: { text }, toolCallId: `e${i}` }));
    const agent = new Agent({
      name: 'echoes',
      instructions: '',
      model: new ScriptedLanguageModel([{ toolCalls: calls }, { text: 'echoed' }]),
      tools: [echoTool],
    });
    const seen = await withAgentWorker(
      env,
      [agent],
      async ({ start }) => {
        const run = await start('echoes', 'echo it all');
        await run.handle.result();
        return { run, ...(await queried(env.client, run)) };
      },
      { taskQueue },
    );
    await expectNoWorker(seen.run);
    expect(jsonBytes(seen.events)).toBeGreaterThan(MAX_FINAL_RECORD_BYTES);
    const record = (await seen.run.finalRecord())!;
    expect(record.firstSeq).toBe(1);
    expect(record.truncated).toBeGreaterThan(0);
    expect(jsonBytes(record)).toBeLessThanOrEqual(MAX_FINAL_RECORD_BYTES);
    const kept = seen.events.slice(record.truncated);
    expect(record.events).toEqual(kept);
    expect(await collect(seen.run)).toEqual(kept);
    expect(kept.at(-1)).toMatchObject({ type: 'finished', text: 'echoed' });
    expect(await seen.run.state()).toEqual(seen.state);
  });
});
