// A finished run is read from its history with every worker stopped: result() and messages() of a completed, a
// failed and a cancelled run, one with encrypted payloads and one that continued as new, equal what the transcript
// query answered while a worker was up. Handles are pinned: a workflow id reused by a later run does not move them.
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
import { transcriptFromHistory } from '../../src/history/transcript-from-history.js';
import { createPayloadCodec } from '../../src/codec/create-payload-codec.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { readTranscript, type TranscriptMessage } from '../../src/protocol/index.js';
import { ToolDeniedError } from '../../src/tool/errors/tool-denied-error.js';
import { createTool } from '../../src/tool/tool.js';
import { stateQuery, transcriptQuery } from '../../src/protocol/run-messages.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, randomWorkflowId, uniqueTaskQueue } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** The transcript as the run's query answers it (a worker must be up). */
async function queried(run: AgentRun): Promise<TranscriptMessage[]> {
  const execution = env.client.workflow.getHandle(run.id, (await run.handle.describe()).runId);
  return (await readTranscript((from, to, part) => execution.query(transcriptQuery, from, to, part), 0)).messages;
}

/**
 * Proves nothing answers the run any more: a query gets NoWorkerError. (Not `state()`: a finished run's state is
 * read from the record the run kept as it ended.)
 */
async function expectNoWorker(client: AgentClient, run: AgentRun): Promise<void> {
  const probe = client.getRun(run.id).handle;
  const query = throughWorker(probe, () => probe.query(stateQuery), {
    request: 'the state query',
    timeoutMs: 1_500,
    pending: false,
  });
  await expect(query).rejects.toSatisfy((error) => NoWorkerError.isInstance(error));
}

const lookup = createTool({
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: z.object({ word: z.string() }),
  execute: async ({ word }) => ({ word, meaning: `the meaning of ${word}` }),
});
const shout = createTool({
  name: 'shout',
  description: 'Shouts.',
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => text.toUpperCase(),
});
const forbidden = createTool({
  name: 'forbidden',
  description: 'Never allowed.',
  parameters: z.object({}),
  execute: async () => {
    throw new ToolDeniedError({ toolName: 'forbidden', message: 'Not on your plan.', code: 'TOOL_PLAN_REQUIRED' });
  },
});
const guarded = createTool({
  name: 'guarded',
  description: 'Needs approval.',
  parameters: z.object({}),
  needsApproval: true,
  execute: async () => 'ran',
});

/** Two steps of tools (one call invalid), then an answer. */
function dictionary(name = 'dictionary'): Agent {
  const model = new ScriptedLanguageModel([
    {
      toolCalls: [
        { toolName: 'lookup', input: { word: 'durable' }, toolCallId: 'l1' },
        { toolName: 'lookup', input: { nope: true }, toolCallId: 'l2' },
      ],
    },
    { toolCalls: [{ toolName: 'shout', input: { text: 'found it' }, toolCallId: 's1' }] },
    { text: 'Durable means lasting.' },
  ]);
  return new Agent({ name, instructions: 'You explain words.', model, tools: [lookup, shout] });
}

describe('a finished run with every worker stopped', () => {
  it('reads result() and messages() of a completed, a failed and a cancelled run from history', async () => {
    const taskQueue = uniqueTaskQueue('finished');
    const deny = new Agent({
      name: 'denier',
      instructions: '',
      model: new ScriptedLanguageModel([
        { toolCalls: [{ toolName: 'shout', input: { text: 'a' }, toolCallId: 'x1' }] },
        { toolCalls: [{ toolName: 'forbidden', input: {}, toolCallId: 'x2' }] },
      ]),
      tools: [shout, forbidden],
    });
    const waiting = new Agent({
      name: 'waiter',
      instructions: 'Wait.',
      model: new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'guarded', input: {}, toolCallId: 'g1' }] }]),
      tools: [guarded],
    });
    // Cancelled while its second model call runs: the first step's tool message is in the transcript.
    const slow = new Agent({
      name: 'slow',
      instructions: '',
      model: new ScriptedLanguageModel([
        { toolCalls: [{ toolName: 'shout', input: { text: 'b' }, toolCallId: 'y1' }] },
        { delayMs: 60_000, text: 'too late' },
      ]),
      tools: [shout],
    });
    const client = new AgentClient({ client: env.client, taskQueue, requestTimeoutMs: 1_500 });
    const seen = await withAgentWorker(
      env,
      [dictionary(), deny, waiting, slow],
      async ({ start }) => {
        const completed = await start('dictionary', 'What does durable mean?');
        const output = await completed.handle.result();
        const failed = await start('denier', 'shout, then do the forbidden thing');
        await expect(failed.handle.result()).rejects.toThrow();
        const cancelled = await start('waiter', 'wait for me');
        await expect.poll(async () => (await cancelled.state()).pendingApprovals.length).toBe(1);
        await cancelled.cancel();
        await expect(cancelled.handle.result()).rejects.toThrow();
        const inModelCall = await start('slow', 'shout b, then think');
        await expect.poll(async () => (await inModelCall.state()).messageCount, { timeout: 15_000 }).toBe(3);
        await inModelCall.cancel();
        await expect(inModelCall.handle.result()).rejects.toThrow();
        return {
          runs: { completed, failed, cancelled, inModelCall },
          output,
          messages: {
            completed: await queried(completed),
            failed: await queried(failed),
            cancelled: await queried(cancelled),
            inModelCall: await queried(inModelCall),
          },
        };
      },
      { taskQueue },
    );
    await expectNoWorker(client, seen.runs.completed);

    const result = await seen.runs.completed.result();
    expect(result).toEqual({ ...(seen.output as object), ...result, messages: seen.messages.completed });
    expect(result.text).toBe('Durable means lasting.');
    expect(result.toolResults.map((r) => r.toolCallId)).toEqual(['l1', 'l2', 's1']);
    expect(seen.messages.completed.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(await seen.runs.completed.messages()).toEqual(seen.messages.completed);

    await expect(seen.runs.failed.result()).rejects.toSatisfy((error) => ToolDeniedError.isInstance(error));
    expect(seen.messages.failed.at(-1)?.role).toBe('tool');
    expect(await seen.runs.failed.messages()).toEqual(seen.messages.failed);

    expect(await seen.runs.cancelled.messages()).toEqual(seen.messages.cancelled);
    expect(seen.messages.inModelCall.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(await seen.runs.inModelCall.messages()).toEqual(seen.messages.inModelCall);
    // Each came from the history itself, not from a query that happened to be answered.
    for (const [kind, run] of Object.entries(seen.runs)) {
      const { runId } = await run.handle.describe();
      const rebuilt = await transcriptFromHistory(env.client.workflow, run.id, runId);
      const closedAs = kind === 'inModelCall' ? 'cancelled' : kind;
      expect(rebuilt, kind).toEqual({ closedAs, messages: seen.messages[kind as keyof typeof seen.messages] });
    }
    // A handle looked up by workflow id alone reads the same history.
    expect(await client.getRun(seen.runs.completed.id).messages()).toEqual(seen.messages.completed);
  });

  it('decodes a history whose payloads are encrypted, with the client codec', async () => {
    const taskQueue = uniqueTaskQueue('finished-codec');
    const codec = createPayloadCodec({ encryption: { keyId: 'history-key', key: randomBytes(32) } });
    const codecClient = new Client({
      connection: env.connection,
      namespace: env.namespace,
      dataConverter: { payloadCodecs: [codec] },
    });
    const client = new AgentClient({ client: codecClient, taskQueue, requestTimeoutMs: 1_500 });
    const seen = await withAgentWorker(
      env,
      [dictionary()],
      async () => {
        const run = await client.start('dictionary', 'What does durable mean?', {
          workflow: { workflowExecutionTimeout: '2 minutes' },
        });
        await run.handle.result();
        const execution = codecClient.workflow.getHandle(run.id);
        const messages = (await readTranscript((f, t, p) => execution.query(transcriptQuery, f, t, p), 0)).messages;
        return { run, messages };
      },
      { taskQueue, payloadCodec: codec },
    );
    await expectNoWorker(client, seen.run);
    expect((await seen.run.result()).messages).toEqual(seen.messages);
    // The same history read without the key is not readable: the payloads really are encrypted.
    await expect(new AgentClient({ client: env.client, taskQueue }).getRun(seen.run.id).messages()).rejects.toThrow();
  });

  it('follows continue-as-new: the last execution carries the earlier ones', async () => {
    const taskQueue = uniqueTaskQueue('finished-can');
    const client = new AgentClient({ client: env.client, taskQueue, requestTimeoutMs: 1_500 });
    const seen = await withAgentWorker(
      env,
      [dictionary()],
      async ({ start }) => {
        const run = await start('dictionary', 'What does durable mean?', { historyEventBudget: 1 });
        await run.handle.result();
        const { runId, raw } = await run.handle.describe();
        expect(runId).not.toBe(raw.workflowExecutionInfo?.firstRunId);
        return { run, messages: await queried(run) };
      },
      { taskQueue },
    );
    await expectNoWorker(client, seen.run);
    expect(seen.run.firstExecutionRunId).toBeDefined();
    expect((await seen.run.result()).messages).toEqual(seen.messages);
    expect(await client.getRun(seen.run.id).messages()).toEqual(seen.messages);
  });
});

describe('pinned handles', () => {
  it('keep reading their own run when a later run reuses the workflow id', async () => {
    const workflowId = randomWorkflowId('reused');
    const taskQueue = uniqueTaskQueue('pinned');
    const echo = (answer: string) =>
      new Agent({ name: 'echo', instructions: '', model: new ScriptedLanguageModel([{ text: answer }]) });
    const first = await withAgentWorker(
      env,
      [echo('first answer')],
      async ({ start }) => {
        const run = await start('echo', 'first question', { workflowId });
        expect((await run.result()).text).toBe('first answer');
        return run;
      },
      { taskQueue },
    );
    const waiter = new Agent({
      name: 'echo',
      instructions: '',
      model: new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'guarded', input: {}, toolCallId: 'g1' }] }]),
      tools: [guarded],
    });
    await withAgentWorker(
      env,
      [waiter],
      async ({ start, client }) => {
        const second = await start('echo', 'second question', { workflowId });
        expect(second.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
        await expect.poll(async () => (await second.state()).pendingApprovals.length).toBe(1);
        // The first handle still reads the first run, with a worker up (queries) and from history alike.
        expect((await first.state()).status).toBe('completed');
        const firstResult = await first.result();
        expect(firstResult.text).toBe('first answer');
        expect(firstResult.messages.find((m) => m.role === 'user')?.content).toBe('first question');
        const again = client.getRun(workflowId, { firstExecutionRunId: first.firstExecutionRunId! });
        expect((await again.state()).status).toBe('completed');
        // An update through the first handle cannot reach the second run either.
        await expect(first.approve('g1', { token: 'any' })).rejects.toThrow();
        expect((await second.state()).pendingApprovals.length).toBe(1);
        // By workflow id alone a lookup follows the latest run.
        expect((await client.getRun(workflowId).state()).status).toBe('waiting');
        await second.handle.terminate('test done');
      },
      { taskQueue },
    );
    // With no worker, still the first run's answer.
    expect((await first.result()).text).toBe('first answer');
  });
});
