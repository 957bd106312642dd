// Human approvals against a real dev server: approve, deny, timeout, duplicate and early signals, rejected
// updates that leave history untouched, and two approvals of one step decided in reverse order.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { approvalSignal } from '../../src/protocol/run-messages.js';
import type { AgentApprovalOptions } from '../../src/agent/types.js';
import { AGENT_RUN_WORKFLOW } from '../../src/protocol/index.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { createTestEnv, randomWorkflowId } from '../support/temporal.js';
import { activityCounts, recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

async function pendingIds(run: AgentRun, count: number): Promise<string[]> {
  await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(count);
  return (await run.state()).pendingApprovals.map((p) => p.toolCallId);
}

/** An agent whose `delete_file` needs approval and whose `list_files` does not; executions are recorded. */
function fileAgent(model: ScriptedLanguageModel, executed: string[], approval?: AgentApprovalOptions) {
  const deleteFile = createTool({
    name: 'delete_file',
    description: 'Deletes a file.',
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    hooks: { onStart: ({ args }) => void executed.push(`onStart ${(args as { path: string }).path}`) },
    execute: async ({ path }) => {
      executed.push(`delete ${path}`);
      return `deleted ${path}`;
    },
  });
  const listFiles = createTool({
    name: 'list_files',
    description: 'Lists files.',
    parameters: z.object({}),
    execute: async () => {
      executed.push('list');
      return ['a.txt', 'b.txt'];
    },
  });
  const guarded = createTool({
    name: 'write_file',
    description: 'Writes a file; approval needed outside /tmp.',
    parameters: z.object({ path: z.string() }),
    needsApproval: async ({ path }) => !path.startsWith('/tmp/'),
    execute: async ({ path }) => {
      executed.push(`write ${path}`);
      return 'written';
    },
  });
  return new Agent({
    name: 'files',
    instructions: '',
    model,
    tools: [deleteFile, listFiles, guarded],
    ...(approval ? { approval } : {}),
  });
}

describe('approvals', () => {
  it('runs an approved call with its hooks and records who approved it and why', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'a.txt' }, toolCallId: 'd1' }] },
      (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('d1')) }),
    ]);
    await withAgentWorker(env, [fileAgent(model, executed)], async ({ start }) => {
      const run = await start('files', 'delete a.txt');
      const [id] = await pendingIds(run, 1);
      const state = await run.state();
      expect(state.status).toBe('waiting');
      expect(state.pendingApprovals[0]).toMatchObject({
        toolCallId: 'd1',
        toolName: 'delete_file',
        args: { path: 'a.txt' },
      });
      expect(Date.parse(state.pendingApprovals[0]!.requestedAt)).not.toBeNaN();
      expect(executed).toEqual([]);
      const record = await run.approve(id!, { approver: 'alice', reason: 'looks fine' });
      expect(record).toMatchObject({ toolCallId: 'd1', approved: true, approver: 'alice', reason: 'looks fine' });
      const result = await run.result();
      expect(executed).toEqual(['onStart a.txt', 'delete a.txt']);
      expect(result.text).toBe('{"type":"text","value":"deleted a.txt"}');
      expect(result.approvals).toMatchObject([
        { toolCallId: 'd1', approved: true, approver: 'alice', reason: 'looks fine' },
      ]);
      const types = [];
      for await (const event of run.events()) types.push(event);
      expect(types.filter((e) => e.type === 'approval-requested')).toHaveLength(1);
      expect(types.find((e) => e.type === 'approval-decided')).toMatchObject({ approved: true, approver: 'alice' });
      await recordHistory('approval-approved', env, run.id);
    });
  });

  it('does not run a denied call; the model reads execution-denied with the reason', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'b.txt' }, toolCallId: 'd1' }] },
      (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('d1')) }),
    ]);
    await withAgentWorker(env, [fileAgent(model, executed)], async ({ start }) => {
      const run = await start('files', 'delete b.txt');
      const [id] = await pendingIds(run, 1);
      await run.deny(id!, { reason: 'keep b.txt' });
      const result = await run.result();
      expect(executed).toEqual([]);
      expect(JSON.parse(result.text)).toEqual({ type: 'execution-denied', reason: 'keep b.txt' });
      expect(result.approvals[0]).toMatchObject({ approved: false, reason: 'keep b.txt' });
      const history = await run.handle.fetchHistory();
      expect(activityCounts(history).executeTool).toBeUndefined();
      await recordHistory('approval-denied', env, run.id);
    });
  });

  it('denies with a reason saying so when the approval times out', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'c.txt' }, toolCallId: 'd1' }] },
      (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('d1')) }),
    ]);
    await withAgentWorker(env, [fileAgent(model, executed)], async ({ start }) => {
      const run = await start('files', 'delete c.txt', { approvalTimeoutMs: 1_500 });
      const result = await run.result();
      expect(executed).toEqual([]);
      expect(JSON.parse(result.text)).toEqual({
        type: 'execution-denied',
        reason: 'Approval timed out after 1500ms without a decision.',
      });
      expect(result.approvals[0]).toMatchObject({ approved: false, timedOut: true });
      await recordHistory('approval-timeout', env, run.id);
    });
  });

  it('applies the agent approval timeout when the run sets none', async () => {
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'd.txt' }, toolCallId: 'd1' }] },
      (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('d1')) }),
    ]);
    const base = fileAgent(model, []);
    const agent = new Agent({
      name: 'impatient',
      instructions: '',
      model,
      tools: base.getTools(),
      approval: { timeout: '1s' },
    });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const result = await (await start('impatient', 'delete d.txt')).result();
      expect(JSON.parse(result.text)).toEqual({
        type: 'execution-denied',
        reason: 'Approval timed out after 1s without a decision.',
      });
    });
  });

  it('asks a person when a needsApproval function throws', async () => {
    const executed: string[] = [];
    const flaky = createTool({
      name: 'flaky_policy',
      description: 'Its approval policy fails.',
      parameters: z.object({}),
      needsApproval: () => {
        throw new Error('policy service down');
      },
      execute: async () => {
        executed.push('ran');
        return 'ran';
      },
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'flaky_policy', input: {}, toolCallId: 'f' }] },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'flaky', instructions: '', model, tools: [flaky] });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('flaky', 'go');
      expect(await pendingIds(run, 1)).toEqual(['f']);
      expect(executed).toEqual([]);
      await run.approve('f');
      await run.result();
      expect(executed).toEqual(['ran']);
    });
  });

  it('applies a signalled decision once, ignores duplicates, and keeps a decision sent before the request when the agent allows it', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'early.txt' }, toolCallId: 'e1' }] },
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'dup.txt' }, toolCallId: 'd2' }] },
      { text: 'done' },
    ]);
    await withAgentWorker(
      env,
      [fileAgent(model, executed, { earlyDecisions: true })],
      async ({ client, taskQueue }) => {
        // Signal-with-start delivers the decision with the run's first task: it always precedes the request.
        const workflowId = randomWorkflowId('early');
        await client.temporal.workflow.signalWithStart(AGENT_RUN_WORKFLOW, {
          workflowId,
          taskQueue,
          args: [{ agentName: 'files', input: 'delete two files' }],
          signal: approvalSignal,
          signalArgs: [{ toolCallId: 'e1', approved: true, approver: 'early-bird' }],
          workflowExecutionTimeout: '2 minutes',
        });
        const run = client.getRun(workflowId);
        const [id] = await pendingIds(run, 1);
        expect(id).toBe('d2');
        await run.approve('d2', { signal: true, approver: 'first' });
        await run.deny('d2', { signal: true, reason: 'too late' });
        await run.approve('d2', { signal: true, approver: 'third' });
        const result = await run.result();
        expect(executed).toEqual(['onStart early.txt', 'delete early.txt', 'onStart dup.txt', 'delete dup.txt']);
        expect(result.approvals.map((a) => [a.toolCallId, a.approved, a.approver])).toEqual([
          ['e1', true, 'early-bird'],
          ['d2', true, 'first'],
        ]);
        await recordHistory('approval-early-and-duplicate', env, run.id);
      },
    );
  });

  it('keeps an early decision across continue-as-new, and ignores malformed signals', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'list_files', input: {}, toolCallId: 'l1' }] },
      { toolCalls: [{ toolName: 'list_files', input: {}, toolCallId: 'l2' }] },
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'late.txt' }, toolCallId: 'late' }] },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [fileAgent(model, executed, { earlyDecisions: true })], async ({ start, client }) => {
      // A tiny history budget: the run continues as new between steps, before it asks about 'late'.
      const run = await start('files', 'list twice, then delete', { historyEventBudget: 1 });
      await run.approve('late', { signal: true, approver: 'early' });
      // Malformed decisions are ignored instead of breaking the run.
      await run.handle.signal(approvalSignal, null as never);
      await run.handle.signal(approvalSignal, { toolCallId: 'late', approved: 'false' } as never);
      const result = await run.result();
      expect(result.text).toBe('done');
      expect(executed).toContain('delete late.txt');
      expect(result.approvals).toMatchObject([{ toolCallId: 'late', approved: true, approver: 'early' }]);
      // It did continue as new on the way.
      const latest = await client.temporal.workflow.getHandle(run.id).describe();
      expect(latest.runId).not.toBe(latest.raw.workflowExecutionInfo?.firstRunId);
    });
  });

  it('rejects an update for an unknown or already-decided id without touching history', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'x.txt' }, toolCallId: 'd1' }] },
      { text: 'done' },
    ]);
    await withAgentWorker(env, [fileAgent(model, executed)], async ({ start }) => {
      const run = await start('files', 'delete x.txt');
      await pendingIds(run, 1);
      const before = (await run.handle.fetchHistory()).events?.length;
      const unknown = await run.approve('nope').catch((err: unknown) => err);
      expect(RunRequestRejectedError.isInstance(unknown)).toBe(true);
      expect((unknown as Error).message).toBe("No pending approval for tool call 'nope'. Pending: d1.");
      expect((await run.handle.fetchHistory()).events?.length).toBe(before);
      await run.approve('d1');
      await expect(run.approve('d1')).rejects.toThrow(
        /The approval for tool call 'd1' was already decided\.|it waits for no approval/,
      );
      await run.result();
      await expect(run.deny('d1')).rejects.toThrow(/Run '.*' has completed: it waits for no approval\./);
    });
  });

  it('decides two approvals of one step in reverse order, without holding back calls that need none', async () => {
    const executed: string[] = [];
    const model = new ScriptedLanguageModel([
      {
        toolCalls: [
          { toolName: 'delete_file', input: { path: '1.txt' }, toolCallId: 'a1' },
          { toolName: 'write_file', input: { path: '/etc/x' }, toolCallId: 'a2' },
          { toolName: 'write_file', input: { path: '/tmp/y' }, toolCallId: 'b' },
          { toolName: 'list_files', input: {}, toolCallId: 'c' },
        ],
      },
      (request) => ({ text: [...toolResultsSeen(request).keys()].join(',') }),
    ]);
    await withAgentWorker(env, [fileAgent(model, executed)], async ({ start }) => {
      const run = await start('files', 'tidy up');
      const ids = await pendingIds(run, 2);
      expect(ids.sort()).toEqual(['a1', 'a2']);
      // The calls needing no approval ran while the others wait.
      await expect.poll(() => executed.slice().sort(), { timeout: 10_000 }).toEqual(['list', 'write /tmp/y']);
      await run.approve('a2', { approver: 'bob' });
      await expect.poll(() => executed.includes('write /etc/x'), { timeout: 10_000 }).toBe(true);
      expect(executed).not.toContain('delete 1.txt');
      await run.approve('a1', { approver: 'bob' });
      const result = await run.result();
      expect(result.text).toBe('a1,a2,b,c');
      expect(result.approvals.map((a) => a.toolCallId)).toEqual(['a2', 'a1']);
      await recordHistory('approval-two-reverse', env, run.id);
    });
  });
});
