// The client's streams in the AI SDK's idiom against a real server: AgentClient.streamText, run.textStream,
// run.fullStream and fullStreamFrom. Scripted models pace their streamed answers in timed chunks; until the generate
// activity publishes model deltas the text comes whole from each step's `text` event, and these tests hold both ways.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { FullStreamPart } from '../../src/client/full-stream.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { defaultPayloadConverter } from '@temporalio/common';
import { AgentRun } from '../../src/client/agent-run.js';
import type { AgentRunInput } from '../../src/protocol/index.js';
import { createTestEnv, randomWorkflowId } from '../support/temporal.js';
import { withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const paced = { chunkChars: 4, chunkDelayMs: 20 };
const weather = createTool({
  name: 'weather',
  description: 'The weather in a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'sunny' }),
});
const email = createTool({
  name: 'email',
  description: 'Sends an email.',
  parameters: z.object({ to: z.string() }),
  needsApproval: true,
  execute: async ({ to }) => ({ sent: to }),
});

/** A scripted (not AI) agent: text and a weather call, then an email that needs approval, then the answer. */
function scriptedForecaster(): Agent {
  const model = new ScriptedLanguageModel([
    { text: 'Let me check. ', toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }], stream: paced },
    { toolCalls: [{ toolName: 'email', input: { to: 'team@example.com' } }], stream: paced },
    { text: 'It is sunny in Oslo,\nand the team knows.', stream: paced },
  ]);
  return new Agent({ name: 'forecaster', instructions: '', model, tools: [weather, email] });
}

async function collect<T>(items: AsyncIterable<T>, until?: (item: T) => boolean): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (until?.(item)) break;
  }
  return out;
}

const textOfStep = (parts: FullStreamPart[], step: number) =>
  parts.flatMap((p) => (p.type === 'text-delta' && p.step === step ? [p.text] : [])).join('');

describe('streamText, textStream and fullStream', () => {
  it('streams a run with tools and an approval: typed parts, the approval id and token to answer with, the text', async () => {
    await withAgentWorker(env, [scriptedForecaster()], async ({ client, taskQueue }) => {
      const result = await client.streamText('forecaster', 'Weather in Oslo, then tell the team', {
        taskQueue,
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      expect(result.runId).toBe(result.run.id);
      // Two watchers at once: the text, and the parts (where the approval is answered).
      const texts = collect(result.textStream);
      const parts: FullStreamPart[] = [];
      for await (const part of result.fullStream) {
        parts.push(part);
        if (part.type === 'tool-approval-request') {
          expect(part.toolCall).toEqual({
            toolCallId: part.approvalId,
            toolName: 'email',
            input: { to: 'team@example.com' },
          });
          expect(part.token).toEqual(expect.any(String));
          await result.run.approve(part.approvalId, { token: part.token!, approver: 'tester' });
        }
      }
      const types = parts.map((p) => p.type);
      expect(types[0]).toBe('start');
      for (const type of ['start-step', 'text-start', 'text-delta', 'text-end', 'tool-call', 'tool-result']) {
        expect(types).toContain(type);
      }
      expect(types.filter((t) => t === 'finish-step')).toHaveLength(3);
      expect(types.at(-1)).toBe('finish');
      expect(parts.map((p) => p.offset)).toEqual([...parts.map((p) => p.offset)].sort((a, b) => a - b));
      expect(parts.filter((p) => p.type === 'reset-step')).toEqual([]);
      expect(textOfStep(parts, 1)).toBe('Let me check. ');
      expect(textOfStep(parts, 3)).toBe('It is sunny in Oslo,\nand the team knows.');
      // The weather call's parts: its input closes before the call, the result follows.
      const call = parts.find((p) => p.type === 'tool-call' && p.toolName === 'weather');
      expect(call).toMatchObject({ step: 1, input: { city: 'Oslo' } });
      expect(parts.find((p) => p.type === 'tool-result' && p.toolName === 'weather')).toMatchObject({
        outcome: 'ok',
        output: { city: 'Oslo', sky: 'sunny' },
      });
      // Joined, the text stream is the text of every step, once.
      expect((await texts).join('')).toBe('Let me check. It is sunny in Oslo,\nand the team knows.');
      expect(await result.text).toBe('It is sunny in Oslo,\nand the team knows.');

      // Resumed from any offset (the middle of a step too), exactly the parts from there.
      const offsets = [...new Set(parts.map((p) => p.offset))];
      for (const from of [offsets[1]!, offsets[Math.floor(offsets.length / 2)]!, offsets.at(-1)!]) {
        const resumed = await collect(result.run.fullStreamFrom({ from }));
        expect(resumed).toEqual(parts.filter((p) => p.offset >= from));
      }
      // A finished run streams the same parts again.
      expect(await collect(result.run.fullStream)).toEqual(parts);
    });
  });

  it('a watcher that disconnects mid-run and reconnects from its offset misses nothing and repeats nothing', async () => {
    await withAgentWorker(env, [scriptedForecaster()], async ({ start }) => {
      const run = await start('forecaster', 'Weather in Oslo, then tell the team');
      const first = await collect(run.fullStream, (part) => part.type === 'tool-approval-request');
      const approval = first.at(-1)!;
      expect(approval.type).toBe('tool-approval-request');
      if (approval.type !== 'tool-approval-request') return;
      // Disconnected while the run goes on.
      await run.approve(approval.approvalId, { ...(approval.token ? { token: approval.token } : {}) });
      await run.result();
      const rest = await collect(run.fullStreamFrom({ from: approval.offset + 1 }));
      const all = await collect(run.fullStream);
      expect([...first, ...rest]).toEqual(all);
      expect(rest.at(-1)).toMatchObject({ type: 'finish', stopReason: 'completed' });
    });
  });

  it('a failed run ends its streams with an error part; the text stream ends quietly and text rejects', async () => {
    const model = new ScriptedLanguageModel([
      { text: 'Starting.', toolCalls: [{ toolName: 'weather', input: { city: 'Oslo' } }] },
      { error: { message: 'the provider is gone', statusCode: 400 } },
    ]);
    const agent = new Agent({ name: 'doomed', instructions: '', model, tools: [weather] });
    await withAgentWorker(env, [agent], async ({ client, taskQueue }) => {
      const result = await client.streamText('doomed', 'go', {
        taskQueue,
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      const parts = await collect(result.fullStream);
      expect(parts.at(-1)).toMatchObject({ type: 'error' });
      expect((await collect(result.textStream)).join('')).toBe('Starting.');
      await expect(result.text).rejects.toThrow(/the provider is gone/);
    });
  });

  it('a run without a stream (shaped like one started on v0.3.0) gives text parts from its text events', async () => {
    const note = createTool({
      name: 'note',
      description: 'Takes a note.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => `noted ${n}`,
    });
    const model = new ScriptedLanguageModel([
      ...Array.from({ length: 5 }, (_, i) => ({ toolCalls: [{ toolName: 'note', input: { n: i + 1 } }] })),
      { text: 'five notes' },
      { text: 'Resumed,\nwithout a stream.' },
    ]);
    const agent = new Agent({ name: 'scribe', instructions: '', model, tools: [note], maxSteps: 20 });
    await withAgentWorker(env, [agent], async ({ start }) => {
      // A run that continued as new carries its protocol and stream in its continuation; a v0.3.0 continuation
      // carries neither, and the next execution follows the legacy protocol: no stream.
      const run = await start('scribe', 'take notes', { historyEventBudget: 25 });
      expect((await collect(run.textStream)).join('')).toBe('five notes');
      const { workflowExecutionStartedEventAttributes: started } = (await run.handle.fetchHistory()).events![0]!;
      const carried = defaultPayloadConverter.fromPayload<AgentRunInput>(started!.input!.payloads![0]!);
      expect(carried.continuation).toBeDefined();
      const { stream: _stream, protocol: _protocol, ...continuation } = carried.continuation!;
      const handle = await env.client.workflow.start('agentRun', {
        taskQueue: (await run.handle.describe()).taskQueue,
        workflowId: randomWorkflowId('v030-shaped'),
        args: [{ ...carried, maxSteps: 20, continuation: { ...continuation, events: [] } }],
        workflowExecutionTimeout: '1 minute',
      });
      const old = new AgentRun(env.client.workflow.getHandle(handle.workflowId));
      const parts = await collect(old.fullStream);
      expect(parts.at(-1)).toMatchObject({ type: 'finish', text: 'Resumed,\nwithout a stream.' });
      const deltas = parts.filter((p) => p.type === 'text-delta');
      expect(deltas).toEqual([expect.objectContaining({ text: 'Resumed,\nwithout a stream.', attempt: 0 })]);
      // Offsets are the events' seqs here: resuming from one gives exactly the parts from there.
      const seqs = parts.map((p) => p.offset);
      expect(seqs[0]).toBe(1);
      expect(await collect(old.fullStreamFrom({ from: deltas[0]!.offset }))).toEqual(
        parts.filter((p) => p.offset >= deltas[0]!.offset),
      );
      expect((await collect(old.textStream)).join('')).toBe('Resumed,\nwithout a stream.');
    });
  });
});
