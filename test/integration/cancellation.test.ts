// run.cancel() is Temporal cancellation: a model call's HTTP request is aborted, a running tool sees its abort
// signal and cleans up, a pending approval runs no tool, and the run ends cancelled with its transcript readable.
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { startOpenAIFakeServer } from '../models/openai-fake-server.js';
import { createTestEnv } from '../support/temporal.js';
import { recordHistory, withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Cancels the run and checks that it ended cancelled, with its last event `cancelled`. */
async function cancelAndConfirm(run: AgentRun): Promise<void> {
  await run.cancel();
  const error = await run.result().catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  const description = await run.handle.describe();
  expect(description.status.name).toBe('CANCELLED');
  const state = await run.state();
  expect(state.status).toBe('cancelled');
  const events = [];
  for await (const event of run.events()) events.push(event.type);
  expect(events.at(-1)).toBe('cancelled');
}

describe('cancellation', () => {
  it('aborts the model HTTP request of a running step', async () => {
    const server = await startOpenAIFakeServer({ apiKey: 'sk-test', chat: [{ hang: true }] });
    try {
      const agent = new Agent({ name: 'slowpoke', instructions: '', model: 'openai/gpt-fake' });
      const providers = new ProviderRegistry({ env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL } });
      await withAgentWorker(
        env,
        [agent],
        async ({ start }) => {
          const run = await start('slowpoke', 'take your time');
          await server.waitForRequests(1);
          await cancelAndConfirm(run);
          const request = server.chatRequests[0]!;
          await request.closed;
          expect(request.closedByClient).toBe(true);
          // The transcript is still readable after the run ended.
          expect((await run.messages()).map((m) => m.role)).toEqual(['user']);
          await recordHistory('cancel-during-model-call', env, run.id);
        },
        { providers },
      );
    } finally {
      await server.close();
    }
  });

  it('fires a running tool abort signal and waits for its cleanup', async () => {
    const seen: string[] = [];
    const longTask = createTool({
      name: 'long_task',
      description: 'Runs for a long time.',
      parameters: z.object({}),
      activity: { heartbeatTimeout: '2s' },
      execute: async (_args, options) => {
        seen.push('started');
        await new Promise<void>((resolve) => options?.abortSignal?.addEventListener('abort', () => resolve()));
        seen.push('aborted');
        await new Promise((r) => setTimeout(r, 300));
        seen.push('cleaned up');
        throw options?.abortSignal?.reason ?? new Error('aborted');
      },
    });
    const model = new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'long_task', input: {}, toolCallId: 't' }] }]);
    const agent = new Agent({ name: 'worker-bee', instructions: '', model, tools: [longTask] });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('worker-bee', 'work');
      await expect.poll(() => seen.includes('started'), { timeout: 10_000 }).toBe(true);
      await cancelAndConfirm(run);
      // The run waited for the tool's cleanup before it ended.
      expect(seen).toEqual(['started', 'aborted', 'cleaned up']);
      const history = await run.handle.fetchHistory();
      expect(history.events?.some((e) => e.activityTaskCanceledEventAttributes)).toBe(true);
      // The tool's own activity options reached Temporal.
      const scheduled = history.events?.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'executeTool',
      )?.activityTaskScheduledEventAttributes;
      expect(Number(scheduled?.heartbeatTimeout?.seconds)).toBe(2);
      expect((await run.messages()).map((m) => m.role)).toEqual(['user', 'assistant']);
      await recordHistory('cancel-during-tool', env, run.id);
    });
  });

  it('ends a pending approval wait without running the tool', async () => {
    const executed: string[] = [];
    const risky = createTool({
      name: 'risky',
      description: 'Needs approval.',
      parameters: z.object({}),
      needsApproval: true,
      execute: async () => {
        executed.push('risky');
        return 'ran';
      },
    });
    const model = new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'risky', input: {}, toolCallId: 'r' }] }]);
    const agent = new Agent({ name: 'cautious', instructions: '', model, tools: [risky] });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('cautious', 'do the risky thing');
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 10_000 }).toBe(1);
      await cancelAndConfirm(run);
      await expect(run.approve('r')).rejects.toThrow();
      expect(executed).toEqual([]);
      await recordHistory('cancel-during-approval', env, run.id);
    });
  });

  it('lets a running sibling tool finish its cleanup when the run is cancelled during an approval wait', async () => {
    const seen: string[] = [];
    const longTask = createTool({
      name: 'long_task',
      description: 'Runs until aborted, then cleans up slowly.',
      parameters: z.object({}),
      activity: { heartbeatTimeout: '2s' },
      execute: async (_args, options) => {
        seen.push('started');
        await new Promise<void>((resolve) => options?.abortSignal?.addEventListener('abort', () => resolve()));
        await new Promise((r) => setTimeout(r, 800));
        seen.push('cleaned up');
        throw options?.abortSignal?.reason ?? new Error('aborted');
      },
    });
    const risky = createTool({
      name: 'risky',
      description: 'Needs approval.',
      parameters: z.object({}),
      needsApproval: true,
      execute: async () => 'ran',
    });
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'long_task', input: {}, toolCallId: 't' },
          { toolName: 'risky', input: {}, toolCallId: 'r' },
        ],
      },
    ]);
    const agent = new Agent({ name: 'siblings', instructions: '', model, tools: [longTask, risky] });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('siblings', 'both');
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => seen.includes('started'), { timeout: 10_000 }).toBe(true);
      await cancelAndConfirm(run);
      // The run ended only after the sibling tool's cleanup.
      expect(seen).toEqual(['started', 'cleaned up']);
      const history = await run.handle.fetchHistory();
      expect(history.events?.some((e) => e.activityTaskCanceledEventAttributes)).toBe(true);
    });
  });
});
