// A person's answer to a call the run does not know yet, sent while the model call that may ask for it runs, is held
// until that call returns and judged then (PATCHES.answersAfterModelCall). This is what a worker replaying a run
// does to an answer that waited for it: Temporal hands it over in the same activation as the model result that asked
// for the call, before that result (test/integration/connect-client-deadlines.test.ts has that crash). Here the
// model call is slow instead, so the order is the test's to choose.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { RefusalCode } from '../../src/protocol/refusal-codes.js';
import { createTool } from '../../src/tool/tool.js';
import { activityCounts, recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** How long the scripted model takes to answer the first step: the window in which answers are sent. */
const MODEL_MS = 2_500;

const askUser = createTool({
  name: 'ask_user',
  description: 'Asks the user a question in the UI.',
  parameters: z.object({ question: z.string() }),
});
const sendEmail = createTool({
  name: 'send_email',
  description: 'Sends an email.',
  parameters: z.object({ to: z.string() }),
  needsApproval: true,
  execute: async ({ to }) => `sent to ${to}`,
});

/** A slow first step asking the client for `q1`, then an answer naming what the client said. */
function slowAsker(): Agent {
  const model = new ScriptedLanguageModel([
    {
      delayMs: MODEL_MS,
      toolCalls: [{ toolName: 'ask_user', input: { question: 'Favourite colour?' }, toolCallId: 'q1' }],
    },
    (request) => ({ text: `user said ${JSON.stringify(toolResultsSeen(request).get('q1'))}` }),
  ]);
  return new Agent({ name: 'slow-asker', instructions: '', model, tools: [askUser, sendEmail] });
}

/** Resolves once the run's first model call is in flight (its `generate` activity started). */
async function modelCallStarted(run: { handle: { fetchHistory(): Promise<{ events?: unknown[] | null }> } }) {
  await expect
    .poll(
      async () =>
        ((await run.handle.fetchHistory()).events ?? []).some(
          (e) =>
            (e as { activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } })
              .activityTaskScheduledEventAttributes?.activityType?.name === 'generate',
        ),
      { timeout: 10_000, interval: 50 },
    )
    .toBe(true);
}

describe('answers sent while the model call that may ask for them runs', () => {
  it('a client-side result for the call the step makes is held, then applied: the run goes on with it', async () => {
    await withAgentWorker(env, [slowAsker()], async ({ start }) => {
      const run = await start('slow-asker', 'ask me');
      await modelCallStarted(run);
      const sent = performance.now();
      // Sent before the model has asked: before, refused at once as ToolResult.UnknownCall.
      await run.submitToolResult('q1', { colour: 'green' });
      expect(performance.now() - sent).toBeGreaterThan(200);
      const result = await run.result();
      expect(result.text).toBe('user said {"type":"json","value":{"colour":"green"}}');
      expect(result.steps[0]!.toolCalls[0]!.outcome).toBe('client-result');
      expect(activityCounts(await run.handle.fetchHistory())).toEqual({ describeAgent: 1, generate: 2 });
      await recordHistory('answers-held-during-model-call', env, run.id);
    });
  });

  it('answers to calls the step does not make are refused with their codes once it returned; past 4, at once', async () => {
    await withAgentWorker(env, [slowAsker()], async ({ start }) => {
      const run = await start('slow-asker', 'ask me');
      await modelCallStarted(run);
      const sent = performance.now();
      const held = [
        run.approve('forged-1', { approver: 'mallory', token: 'guessed' }),
        run.approve('forged-2', { approver: 'mallory', token: 'guessed' }),
        run.submitToolResult('forged-3', 'x'),
        run.submitToolResult('forged-4', 'x'),
      ].map((p) =>
        p.then(
          () => ({ code: 'accepted', ms: performance.now() - sent }),
          (err: unknown) => ({ code: (err as RunRequestRejectedError).code, ms: performance.now() - sent }),
        ),
      );
      // Let the four be held before the fifth is sent.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const fifthSent = performance.now();
      const fifth = await run.approve('forged-5', { approver: 'mallory', token: 'guessed' }).then(
        () => 'accepted',
        (err: unknown) => {
          expect(RunRequestRejectedError.isInstance(err), String(err)).toBe(true);
          return (err as RunRequestRejectedError).code;
        },
      );
      expect(fifth).toBe(RefusalCode.ApprovalUnknownCall);
      expect(performance.now() - fifthSent).toBeLessThan(MODEL_MS);
      const outcomes = await Promise.all(held);
      expect(outcomes.map((o) => o.code)).toEqual([
        RefusalCode.ApprovalUnknownCall,
        RefusalCode.ApprovalUnknownCall,
        RefusalCode.ToolResultUnknownCall,
        RefusalCode.ToolResultUnknownCall,
      ]);
      // Judged only once the model call returned.
      for (const outcome of outcomes) expect(outcome.ms).toBeGreaterThan(MODEL_MS - 1_000);
      // The run is unharmed: it waits for the call it made, and takes its answer.
      expect((await run.state()).pendingToolResults.map((p) => p.toolCallId)).toEqual(['q1']);
      await run.submitToolResult('q1', 'blue');
      expect((await run.result()).text).toBe('user said {"type":"text","value":"blue"}');
      await recordHistory('answers-held-refused', env, run.id);
    });
  });
});
