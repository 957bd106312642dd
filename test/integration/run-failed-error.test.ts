// run.result() of a failed run rejects with one line naming the run and the root cause (RunFailedError), Temporal's
// WorkflowFailedError kept as its cause; a run a tool denied still rejects with the ToolDeniedError.
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { RunFailedError } from '../../src/client/errors/run-failed-error.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { ToolDeniedError } from '../../src/tool/errors/tool-denied-error.js';
import { z } from 'zod';
import { createTestEnv } from '../support/temporal.js';
import { withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

describe('a failed run, summarized', () => {
  it('rejects with a one-line RunFailedError (root cause, failure type as code), the Temporal error as cause', async () => {
    // A hostile server body: many lines and far too long for a summary.
    const body = `unknown parameter 'temperature'\n${'<html>'.repeat(20_000)}`;
    const rejected = new ScriptedLanguageModel([{ error: { message: body, statusCode: 400 } }]);
    const refunds = createTool({
      name: 'refund',
      description: 'refund',
      parameters: z.object({}),
      execute: () => {
        throw new ToolDeniedError({ toolName: 'refund', message: 'refunds are closed', code: 'REFUNDS_CLOSED' });
      },
    });
    const denier = new ScriptedLanguageModel([{ toolCalls: [{ toolName: 'refund', input: {} }] }]);
    const agents = [
      new Agent({ name: 'rejected', instructions: '', model: rejected }),
      new Agent({ name: 'denied', instructions: '', model: denier, tools: [refunds] }),
    ];
    await withAgentWorker(env, agents, async ({ start }) => {
      const bad = await start('rejected', 'hi');
      const error = await bad.result().catch((err: unknown) => err);
      expect(RunFailedError.isInstance(error)).toBe(true);
      const failed = error as RunFailedError;
      expect(failed.code).toBe('Model.BadRequest');
      expect(failed.runId).toBe(bad.id);
      expect(failed.message).not.toContain('\n');
      expect(failed.message.length).toBeLessThan(500);
      expect(failed.message).toMatch(new RegExp(`^Run '${bad.id}' failed: .*unknown parameter 'temperature'`));
      expect(failed.cause).toBeInstanceOf(WorkflowFailedError);

      const denied = await start('denied', 'refund it');
      const deniedError = await denied.result().catch((err: unknown) => err);
      expect(ToolDeniedError.isInstance(deniedError)).toBe(true);
      expect((deniedError as ToolDeniedError).code).toBe('REFUNDS_CLOSED');
    });
  });
});
