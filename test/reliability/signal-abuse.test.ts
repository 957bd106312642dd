// What clients send is untrusted. Decisions are bound to the request a person saw, early and junk signals are
// bounded, a decider can be refused, and cancellation leaves nothing pending or falsely successful.
import { createHmac } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentApprovalOptions } from '../../src/agent/types.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { AGENT_RUN_WORKFLOW, type AgentRunInput, type RunEvent } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { approvalSignal, approvalUpdate } from '../../src/protocol/run-messages.js';
import { createTestEnv, randomWorkflowId } from '../support/temporal.js';
import { withAgentWorker, type HarnessClient } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

function deleteAgent(executed: string[], approval?: AgentApprovalOptions, steps?: ScriptedLanguageModel) {
  const deleteFile = createTool({
    name: 'delete_file',
    description: 'Deletes a file.',
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      executed.push(path);
      return `deleted ${path}`;
    },
  });
  const model =
    steps ??
    new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { toolCalls: [{ toolName: 'delete_file', input: { path: '/important' }, toolCallId: 'call_1_0' }] },
        { text: 'done' },
      ],
    });
  return new Agent({
    name: 'deleter',
    instructions: '',
    model,
    tools: [deleteFile],
    ...(approval ? { approval } : {}),
  });
}

/** Starts a run with a signal delivered in its first task, before the run can have asked anything. */
async function startWithSignal(h: HarnessClient, input: Partial<AgentRunInput>, decision: object) {
  const workflowId = randomWorkflowId('abuse');
  await h.client.temporal.workflow.signalWithStart(AGENT_RUN_WORKFLOW, {
    workflowId,
    taskQueue: h.taskQueue,
    args: [{ agentName: 'deleter', input: 'clean up', ...input }],
    signal: approvalSignal,
    signalArgs: [decision as never],
    workflowExecutionTimeout: '2 minutes',
  });
  return h.client.getRun(workflowId);
}

async function eventsOf(run: { events: () => AsyncGenerator<RunEvent> }): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

describe('signal abuse', () => {
  it('ignores a decision sent before the request existed: nobody approves a call they never saw', async () => {
    const executed: string[] = [];
    await withAgentWorker(env, [deleteAgent(executed)], async (h) => {
      const run = await startWithSignal(h, {}, { toolCallId: 'call_1_0', approved: true, approver: 'mallory' });
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(1);
      await delay(300);
      expect(executed).toEqual([]);
      const [pending] = (await run.state()).pendingApprovals;
      expect(pending!.token).toMatch(/^[0-9a-f-]{36}$/);
      await run.approve('call_1_0', { approver: 'ada' });
      const result = await run.result();
      expect(executed).toEqual(['/important']);
      expect(result.approvals).toMatchObject([{ toolCallId: 'call_1_0', approved: true, approver: 'ada' }]);
      expect(result.approvals[0]!.approverVerified).toBeUndefined();
    });
  });

  it('rejects an update whose token does not match, and ignores such a signal', async () => {
    const executed: string[] = [];
    await withAgentWorker(env, [deleteAgent(executed)], async (h) => {
      const run = await h.start('deleter', 'clean up');
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(1);
      const forged = { toolCallId: 'call_1_0', approved: true, approver: 'mallory', token: 'guessed' };
      const error = await run.handle.executeUpdate(approvalUpdate, { args: [forged] }).catch((err: unknown) => err);
      expect(String((error as Error).cause)).toMatch(/token does not match/);
      await run.handle.signal(approvalSignal, forged);
      await run.handle.signal(approvalSignal, { toolCallId: 'call_1_0', approved: true, approver: 'mallory' });
      await delay(500);
      expect((await run.state()).pendingApprovals).toHaveLength(1);
      await run.deny('call_1_0', { reason: 'no', approver: 'ada' });
      expect((await run.result()).approvals).toMatchObject([{ approved: false, approver: 'ada', reason: 'no' }]);
      expect(executed).toEqual([]);
    });
  });

  it('keeps at most 64 early decisions, ignores oversized ones, and still continues as new', async () => {
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { delayMs: 1_500, toolCalls: [{ toolName: 'noop', input: {}, toolCallId: 'n1' }] },
        { toolCalls: [{ toolName: 'noop', input: {}, toolCallId: 'n2' }] },
        { text: 'done' },
      ],
    });
    const noop = createTool({
      name: 'noop',
      description: 'Does nothing.',
      parameters: z.object({}),
      execute: () => 'ok',
    });
    const agent = new Agent({
      name: 'deleter',
      instructions: '',
      model,
      tools: [noop],
      approval: { earlyDecisions: true },
    });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await startWithSignal(h, { historyEventBudget: 1 }, { toolCallId: 'junk-0', approved: true });
      const sends = [];
      for (let i = 1; i < 150; i++) {
        sends.push(
          run.handle.signal(approvalSignal, { toolCallId: `junk-${i}`, approved: true, reason: 'x'.repeat(1_500) }),
        );
      }
      for (let i = 0; i < 40; i++) {
        sends.push(
          run.handle.signal(approvalSignal, { toolCallId: `huge-${i}`, approved: true, reason: 'y'.repeat(40_000) }),
        );
      }
      await Promise.all(sends);
      expect((await run.result()).text).toBe('done');
      // The execution that continued carried a bounded set of early decisions.
      const history = await env.client.workflow.getHandle(run.id).fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      const payload = started?.input?.payloads?.[0]?.data;
      const next = JSON.parse(Buffer.from(payload!).toString('utf8')) as AgentRunInput;
      expect(next.continuation).toBeDefined();
      expect(next.continuation!.earlyApprovals!.length).toBeLessThanOrEqual(64);
      expect(next.continuation!.earlyApprovals!.every((d) => d.toolCallId.startsWith('junk-'))).toBe(true);
      expect(next.input).toBe('');
    });
  });

  it('lets an authorizeDecision hook refuse a decider and vouch for another', async () => {
    const key = 'test-signing-key';
    const sign = (user: string) => createHmac('sha256', key).update(user).digest('hex');
    const executed: string[] = [];
    const approval: AgentApprovalOptions = {
      authorizeDecision: (decision, request, run) => {
        const identity = decision.identity as { user?: string; sig?: string } | undefined;
        if (!identity?.user || identity.sig !== sign(identity.user))
          return { allowed: false, reason: 'Unverified decider.' };
        if (identity.user !== 'ada')
          return { allowed: false, reason: `${identity.user} may not approve ${request.toolName}.` };
        expect(run.agentName).toBe('deleter');
        return { allowed: true, approver: `${identity.user}@example.com` };
      },
    };
    await withAgentWorker(env, [deleteAgent(executed, approval)], async (h) => {
      const run = await h.start('deleter', 'clean up');
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(1);
      const refused = await run
        .approve('call_1_0', { approver: 'ada', identity: { user: 'mallory', sig: sign('mallory') } })
        .catch((err: unknown) => err);
      expect(RunRequestRejectedError.isInstance(refused)).toBe(true);
      expect((refused as Error).message).toBe('mallory may not approve delete_file.');
      const forged = await run.approve('call_1_0', { identity: { user: 'ada', sig: 'nope' } }).catch((e: unknown) => e);
      expect((forged as Error).message).toBe('Unverified decider.');
      expect((await run.state()).pendingApprovals).toHaveLength(1);
      const record = await run.approve('call_1_0', {
        approver: 'claims-to-be-root',
        identity: { user: 'ada', sig: sign('ada') },
      });
      expect(record).toMatchObject({ approved: true, approver: 'ada@example.com', approverVerified: true });
      await run.result();
      expect(executed).toEqual(['/important']);
      const events = await eventsOf(run);
      expect(events.filter((e) => e.type === 'approval-refused').map((e) => (e as { reason: string }).reason)).toEqual([
        'mallory may not approve delete_file.',
        'Unverified decider.',
      ]);
    });
  });

  it('records a tool that swallows its abort as cancelled, not as a success', async () => {
    let finished = false;
    const stubborn = createTool({
      name: 'stubborn',
      description: 'Ignores cancellation.',
      parameters: z.object({}),
      activity: { heartbeatTimeout: '2s' },
      execute: async () => {
        await delay(2_500);
        finished = true;
        return 'finished anyway';
      },
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'stubborn', input: {}, toolCallId: 's' }] },
      { text: 'x' },
    ]);
    await withAgentWorker(
      env,
      [new Agent({ name: 'stubborn-agent', instructions: '', model, tools: [stubborn] })],
      async (h) => {
        const run = await h.start('stubborn-agent', 'go');
        await expect.poll(async () => (await run.state()).runningTools.length, { timeout: 15_000 }).toBe(1);
        await run.cancel();
        await expect(run.result()).rejects.toThrow();
        expect(finished).toBe(true);
        const events = await eventsOf(run);
        expect(events.some((e) => e.type === 'tool-result')).toBe(false);
        expect(events.at(-1)?.type).toBe('cancelled');
        expect((await run.messages()).some((m) => m.role === 'tool')).toBe(false);
      },
    );
  });

  it('lists nothing pending once a waiting run is cancelled', async () => {
    await withAgentWorker(env, [deleteAgent([])], async (h) => {
      const run = await h.start('deleter', 'clean up');
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(1);
      await run.cancel();
      await expect.poll(async () => (await run.state()).status, { timeout: 15_000 }).toBe('cancelled');
      expect((await run.state()).pendingApprovals).toEqual([]);
    });
  });
});
