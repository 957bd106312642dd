// A finished run whose last step's tool message no later `generate` input carries is still read from history with
// every worker stopped: the 0.4.0 final record holds that message (results by reference) and the message count.
// Each case ends on its step budget right after such a step: a call that waited for an approval (approved, denied),
// a local tool, and a routed run's searchTools/callTool; each equals what the transcript query answered.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { NoWorkerError } from '../../src/client/errors/no-worker-error.js';
import { throughWorker } from '../../src/client/through-worker.js';
import { transcriptFromHistory } from '../../src/history/transcript-from-history.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { readTranscript, type TranscriptMessage } from '../../src/protocol/index.js';
import { stateQuery, transcriptQuery } from '../../src/protocol/run-messages.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

async function queried(run: AgentRun): Promise<TranscriptMessage[]> {
  const execution = env.client.workflow.getHandle(run.id, (await run.handle.describe()).runId);
  return (await readTranscript((from, to, part) => execution.query(transcriptQuery, from, to, part), 0)).messages;
}

const guarded = createTool({
  name: 'guarded',
  description: 'Needs approval.',
  parameters: z.object({ what: z.string() }),
  needsApproval: true,
  execute: async ({ what }) => ({ ran: what }),
});
const localLookup = createTool({
  name: 'local_lookup',
  description: 'Looks a key up, locally.',
  parameters: z.object({ key: z.string() }),
  activity: { local: true, startToCloseTimeout: '10s' },
  execute: async ({ key }) => ({ key, from: 'local' }),
});
const getWeather = createTool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: 21 }),
});
const sendEmail = createTool({
  name: 'send_email',
  description: 'Send an email message to a recipient.',
  parameters: z.object({ to: z.string() }),
  execute: async ({ to }) => `sent to ${to}`,
});

/** One step of calls, then a budget of one step ends the run (its last message is that step's tool message). */
function oneStep(name: string, toolCalls: { toolName: string; input: unknown; toolCallId: string }[]): Agent {
  const tools = [guarded, localLookup];
  return new Agent({
    name,
    instructions: `You are ${name}.`,
    model: new ScriptedLanguageModel([{ toolCalls }]),
    tools,
  });
}

describe('a finished run whose last step no model call carried, with every worker stopped', () => {
  it('reads an approved, a denied, a local and a routed last step from history', async () => {
    const taskQueue = uniqueTaskQueue('finished-last');
    const routed = new Agent({
      name: 'routed',
      instructions: 'You run operations.',
      model: new ScriptedLanguageModel([
        { toolCalls: [{ toolName: 'searchTools', input: { query: 'weather for a city' }, toolCallId: 's1' }] },
        {
          toolCalls: [
            { toolName: 'callTool', input: { name: 'get_weather', args: { city: 'Oslo' } }, toolCallId: 'c1' },
            { toolName: 'searchTools', input: { query: 'send an email' }, toolCallId: 's2' },
          ],
        },
      ]),
      tools: [getWeather, sendEmail],
      toolRouting: {},
    });
    const agents = [
      oneStep('approved', [{ toolName: 'guarded', input: { what: 'a' }, toolCallId: 'a1' }]),
      oneStep('denied', [{ toolName: 'guarded', input: { what: 'd' }, toolCallId: 'd1' }]),
      oneStep('local', [
        { toolName: 'local_lookup', input: { key: 'k' }, toolCallId: 'k1' },
        { toolName: 'guarded', input: { what: 'l' }, toolCallId: 'k2' },
      ]),
      routed,
    ];
    const client = new AgentClient({ client: env.client, taskQueue, requestTimeoutMs: 1_500 });
    const seen = await withAgentWorker(
      env,
      agents,
      async ({ start }) => {
        const decided = async (name: string, approve: boolean) => {
          const run = await start(name, 'go', { maxSteps: 1 });
          await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
          const { toolCallId } = (await run.state()).pendingApprovals[0]!;
          if (approve) await run.approve(toolCallId);
          else await run.deny(toolCallId, { reason: 'not today' });
          await run.handle.result();
          return run;
        };
        const approved = await decided('approved', true);
        const denied = await decided('denied', false);
        const local = await decided('local', true);
        const routedRun = await start('routed', 'weather in Oslo, then mail it', { maxSteps: 2 });
        await routedRun.handle.result();
        const runs = { approved, denied, local, routed: routedRun };
        const messages: Record<string, TranscriptMessage[]> = {};
        for (const [kind, run] of Object.entries(runs)) messages[kind] = await queried(run);
        return { runs, messages };
      },
      { taskQueue },
    );
    const probe = client.getRun(seen.runs.approved.id).handle;
    await expect(
      throughWorker(probe, () => probe.query(stateQuery), {
        request: 'the state query',
        timeoutMs: 1_500,
        pending: false,
      }),
    ).rejects.toSatisfy((error) => NoWorkerError.isInstance(error));

    for (const [kind, run] of Object.entries(seen.runs)) {
      const expected = seen.messages[kind]!;
      expect(expected.at(-1)?.role, kind).toBe('tool');
      const { runId } = await run.handle.describe();
      // From the history itself, not from a query that happened to be answered.
      expect(await transcriptFromHistory(env.client.workflow, run.id, runId), kind).toEqual({
        closedAs: 'completed',
        messages: expected,
      });
      expect(await run.messages(), kind).toEqual(expected);
      expect((await run.result()).messages, kind).toEqual(expected);
    }
    expect(JSON.stringify(seen.messages.denied!.at(-1))).toContain('not today');
    expect(JSON.stringify(seen.messages.local!.at(-1))).toContain('"from":"local"');
    expect(JSON.stringify(seen.messages.routed!.at(-1))).toContain('"tempC":21');
  });
});
