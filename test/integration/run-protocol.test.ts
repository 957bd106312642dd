// One run protocol per release, decided once (workflows/protocol.ts): a new run follows protocol 4, asks the one
// 0.4 patch once, and says so in its memo in its first task; every execution it continues into carries the protocol
// and says it again; a run carrying an earlier protocol (as a v0.1.0–v0.3.0 run continued by this code does) keeps
// it: no stream, no final record, no 0.4 marker. The client learns all this from the memo, never from history.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { RunWithoutStreamError } from '../../src/client/errors/run-without-stream-error.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { FINAL_RECORD_MEMO_KEY, type AgentRunInput } from '../../src/protocol/index.js';
import { CURRENT_RUN_PROTOCOL, RUN_PROTOCOL_MEMO_KEY, RUN_PROTOCOL_PATCH } from '../../src/protocol/run-protocol.js';
import { createTool } from '../../src/tool/tool.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { LEGACY_PATCHES } from '../../workflows/legacy/patches.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { bundleWorkflows, createTestEnv } from '../support/temporal.js';

type History = temporal.api.history.v1.IHistory;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** The ids of the patch markers a history holds, in order. */
function patchIds(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const payload = marker.details?.['patch-data']?.payloads?.[0];
    return [(JSON.parse(Buffer.from(payload?.data ?? []).toString('utf8')) as { id: string }).id];
  });
}

/** The memo keys each workflow task of a history upserted, in order (one entry per memo change). */
function memoChanges(history: History): string[][] {
  return (history.events ?? []).flatMap((event) => {
    const fields = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
    return fields ? [Object.keys(fields)] : [];
  });
}

/** A scripted agent whose run takes `steps` tool steps, then answers. */
function steppingAgent(name: string, steps: number): Agent {
  const tick = createTool({
    name: 'tick',
    description: 'Ticks.',
    parameters: z.object({ n: z.number() }),
    execute: ({ n }) => `tick ${n}`,
  });
  const script = Array.from({ length: steps }, (_, i) => ({
    toolCalls: [{ toolName: 'tick', input: { n: i + 1 }, toolCallId: `t${i + 1}` }],
  }));
  // Chosen by the transcript's assistant turns, so a run that goes on from another's transcript finds its step.
  const model = new ScriptedLanguageModel({ steps: [...script, { text: 'done' }], stepSelection: 'assistant-turns' });
  return new Agent({ name, instructions: '', model, tools: [tick] });
}

/** Every execution of a run's chain, oldest first: its run id and history. */
async function executions(workflowId: string, lastRunId: string): Promise<{ runId: string; history: History }[]> {
  const chain: { runId: string; history: History }[] = [];
  for (let runId: string | undefined = lastRunId; runId; ) {
    const history: History = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    chain.unshift({ runId, history });
    const started: temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes | null | undefined =
      history.events?.[0]?.workflowExecutionStartedEventAttributes;
    runId = started?.continuedExecutionRunId || undefined;
  }
  return chain;
}

/** The run input an execution started with. */
function startInput(history: History): AgentRunInput {
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return JSON.parse(Buffer.from(payload?.data ?? []).toString('utf8')) as AgentRunInput;
}

describe('the run protocol', () => {
  it('a new run follows protocol 4: one patch marker, its memo says so in the first task, and every execution it continues into carries and says it', async () => {
    await withAgentWorker(env, [steppingAgent('ticker', 3)], async ({ start, client }) => {
      const run = await start('ticker', 'tick', { historyEventBudget: 1 });
      // The memo says it while the run runs (the client's describe), and it has a stream.
      const parts = [];
      for await (const part of run.stream()) parts.push(part);
      expect(parts.at(-1)).toMatchObject({ type: 'event', event: { type: 'finished', text: 'done' } });
      expect((await run.result()).text).toBe('done');

      const described = await env.client.workflow.getHandle(run.id).describe();
      expect(described.memo?.[RUN_PROTOCOL_MEMO_KEY]).toBe(CURRENT_RUN_PROTOCOL);
      const chain = await executions(run.id, described.runId);
      expect(chain.length).toBeGreaterThanOrEqual(3);
      const [first, ...continued] = chain;
      // Decided once, by the first execution, with the one 0.4 id; continued executions carry it and ask nothing.
      expect(patchIds(first!.history)).toEqual([RUN_PROTOCOL_PATCH]);
      for (const { history } of continued) {
        expect(patchIds(history)).toEqual([]);
        expect(startInput(history).continuation?.protocol).toBe(CURRENT_RUN_PROTOCOL);
      }
      for (const { history } of chain) {
        // Each execution says its protocol in its first memo change (the last one also records its final events).
        expect(memoChanges(history)[0]).toEqual([RUN_PROTOCOL_MEMO_KEY]);
      }
      expect(memoChanges(chain.at(-1)!.history).flat()).toContain(FINAL_RECORD_MEMO_KEY);
      // A reader that knows the run by its id alone reads its end with no worker.
      expect(await client.getRun(run.id).finalRecord()).toBeDefined();

      const workflowBundle = await bundleWorkflows(workflowsPath());
      for (const { history } of chain) {
        await expect(Worker.runReplayHistory({ workflowBundle }, history)).resolves.toBeUndefined();
      }
    });
  });

  it('a run carrying an earlier protocol keeps it across continue-as-new: legacy rules, no stream, no final record, no 0.4 marker', async () => {
    await withAgentWorker(env, [steppingAgent('old-ticker', 4)], async ({ start, client, taskQueue }) => {
      // A continuation as this code writes it for a v0.2.0/v0.3.0 run (protocol 2, no stream): taken from a
      // protocol-4 run's second execution, and made that run's.
      const model = await start('old-ticker', 'tick', { historyEventBudget: 1 });
      await model.result();
      const chain = await executions(model.id, (await env.client.workflow.getHandle(model.id).describe()).runId);
      const input = startInput(chain[1]!.history);
      const { stream: _stream, ...legacy } = input.continuation!;
      const workflowId = `legacy-protocol-${Date.now()}`;
      await env.client.workflow.start('agentRun', {
        taskQueue,
        workflowId,
        args: [{ ...input, continuation: { ...legacy, protocol: 2 } }],
        memo: { agent: 'old-ticker' },
      });
      const run = client.getRun(workflowId);
      expect((await run.result()).text).toBe('done');

      const last = (await env.client.workflow.getHandle(workflowId).describe()).runId;
      const legacyChain = await executions(workflowId, last);
      expect(legacyChain.length).toBeGreaterThanOrEqual(2);
      for (const { history } of legacyChain) {
        // Legacy code asks the released ids where v0.2.0 did (`continueAsNewBytes` as it continues), never 0.4's.
        expect(patchIds(history).filter((id) => id !== LEGACY_PATCHES.continueAsNewBytes)).toEqual([]);
        expect(memoChanges(history)).toEqual([[RUN_PROTOCOL_MEMO_KEY]]);
      }
      for (const { history } of legacyChain.slice(1)) expect(startInput(history).continuation?.protocol).toBe(2);
      const memo = (await env.client.workflow.getHandle(workflowId).describe()).memo;
      expect(memo?.[RUN_PROTOCOL_MEMO_KEY]).toBe(2);
      expect(memo?.[FINAL_RECORD_MEMO_KEY]).toBeUndefined();
      // The client reads the protocol from the memo: no stream for it.
      const stream = client.getRun(workflowId).stream();
      await expect(stream.next()).rejects.toBeInstanceOf(RunWithoutStreamError);
      const workflowBundle = await bundleWorkflows(workflowsPath());
      for (const { history } of legacyChain) {
        await expect(Worker.runReplayHistory({ workflowBundle }, history)).resolves.toBeUndefined();
      }
    });
  });

  it('a run that carries a protocol this code does not know fails its workflow task, saying to deploy newer code', async () => {
    await withAgentWorker(env, [steppingAgent('future-ticker', 2)], async ({ start, taskQueue }) => {
      const model = await start('future-ticker', 'tick', { historyEventBudget: 1 });
      await model.result();
      const chain = await executions(model.id, (await env.client.workflow.getHandle(model.id).describe()).runId);
      const input = startInput(chain[1]!.history);
      const workflowId = `future-protocol-${Date.now()}`;
      const handle = await env.client.workflow.start('agentRun', {
        taskQueue,
        workflowId,
        args: [{ ...input, continuation: { ...input.continuation!, protocol: 9 } }],
      });
      // The task fails and is retried (a newer worker would take it): the run stays open, saying why.
      let failure: string | undefined;
      for (let i = 0; i < 100 && !failure; i++) {
        const history = await handle.fetchHistory();
        failure =
          history.events?.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure
            ?.message ?? undefined;
        if (!failure) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(failure).toMatch(/protocol 9.*deploy newer code/);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test done');
    });
  });
});
