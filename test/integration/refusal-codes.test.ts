// Every refusal of an update carries a stable code: the run's validator throws it as the failure's type, the client
// hands it over as RunRequestRejectedError.code, and a refused update leaves the history as it was.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentApprovalOptions } from '../../src/agent/types.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { INPUT_LIMITS, RefusalCode } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** An agent that deletes two files in one step, each deletion needing a person's approval. */
function deleter(approval?: AgentApprovalOptions): Agent {
  const model = new ScriptedLanguageModel([
    {
      toolCalls: [
        { toolName: 'delete_file', input: { path: 'a' }, toolCallId: 'd1' },
        { toolName: 'delete_file', input: { path: 'b' }, toolCallId: 'd2' },
      ],
    },
    { text: 'done' },
  ]);
  const deleteFile = createTool({
    name: 'delete_file',
    description: 'Deletes a file.',
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => `deleted ${path}`,
  });
  return new Agent({
    name: 'deleter',
    instructions: '',
    model,
    tools: [deleteFile],
    ...(approval ? { approval } : {}),
  });
}

async function refusal(request: Promise<unknown>): Promise<RunRequestRejectedError> {
  const error = await request.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!RunRequestRejectedError.isInstance(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

async function waitForApprovals(run: AgentRun, count: number): Promise<void> {
  await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(count);
}

describe('refusal codes', () => {
  it('says which rule refused a decision or a tool result, and records nothing', async () => {
    await withAgentWorker(env, [deleter()], async ({ start }) => {
      const run = await start('deleter', 'delete a and b');
      await waitForApprovals(run, 2);
      const before = (await run.handle.fetchHistory()).events?.length;

      expect((await refusal(run.approve('nope'))).code).toBe(RefusalCode.ApprovalUnknownCall);
      expect((await refusal(run.approve('d1', { token: 'forged' }))).code).toBe(RefusalCode.ApprovalTokenMismatch);
      const long = await refusal(run.approve('d1', { reason: 'x'.repeat(INPUT_LIMITS.reasonChars + 1) }));
      expect(long.code).toBe(RefusalCode.InputTooLarge);
      expect(long.message).toBe(`reason must be at most ${INPUT_LIMITS.reasonChars} characters.`);
      expect((await refusal(run.submitToolResult('nope', 1))).code).toBe(RefusalCode.ToolResultUnknownCall);
      expect((await run.handle.fetchHistory()).events?.length).toBe(before);

      await run.approve('d1');
      const again = await refusal(run.approve('d1'));
      expect(again.code).toBe(RefusalCode.ApprovalAlreadyDecided);
      expect(again.message).toBe("The approval for tool call 'd1' was already decided.");

      await run.deny('d2');
      await run.result();
      const ended = await refusal(run.approve('d2'));
      expect(ended.code).toBe(RefusalCode.RunEnded);
      // With the token at hand the client asks the run nothing first: Temporal itself refuses a closed run.
      expect((await refusal(run.approve('d2', { token: 't' }))).code).toBe(RefusalCode.RunEnded);
      expect((await refusal(run.submitToolResult('d2', 1))).code).toBe(RefusalCode.RunEnded);
    });
  });

  it("says when the agent's authorizeDecision hook refused the decider", async () => {
    const agent = deleter({ authorizeDecision: (decision) => decision.approver === 'alice' });
    await withAgentWorker(env, [agent], async ({ start }) => {
      const run = await start('deleter', 'delete a and b');
      await waitForApprovals(run, 2);
      const refused = await refusal(run.approve('d1', { approver: 'mallory' }));
      expect(refused.code).toBe(RefusalCode.ApprovalNotAuthorized);
      await run.approve('d1', { approver: 'alice' });
      await run.deny('d2', { approver: 'alice' });
      expect((await run.result()).text).toBe('done');
    });
  });
});
