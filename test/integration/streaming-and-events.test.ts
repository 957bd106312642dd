// Streaming tools report progress through run.state() and run.events(); the event log is ordered, resumable from
// an offset, and survives continue-as-new together with the transcript.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { RunEvent } from '../../src/protocol/index.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { createTestEnv } from '../support/temporal.js';
import { recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const download = createTool({
  name: 'download',
  description: 'Downloads a file in chunks, reporting progress.',
  parameters: z.object({ chunks: z.number().int() }),
  outputSchema: z.object({ done: z.number(), total: z.number() }),
  execute: async function* ({ chunks }) {
    for (let done = 1; done <= chunks; done++) {
      await new Promise((r) => setTimeout(r, 250));
      yield { done, total: chunks };
    }
  },
});

describe('streaming tools', () => {
  it('shows each yield as progress in state and events; the model sees only the final value', async () => {
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'download', input: { chunks: 6 }, toolCallId: 'dl' }] },
      (request) => ({ text: JSON.stringify([...toolResultsSeen(request).values()]) }),
    ]);
    const agent = new Agent({ name: 'downloader', instructions: '', model, tools: [download] });
    await withAgentWorker(
      env,
      [agent],
      async ({ start }) => {
        const run = await start('downloader', 'get it');
        await expect
          .poll(async () => (await run.state()).runningTools[0]?.progress?.seq ?? 0, { timeout: 10_000, interval: 50 })
          .toBeGreaterThanOrEqual(2);
        const running = (await run.state()).runningTools[0]!;
        expect(running).toMatchObject({ toolCallId: 'dl', toolName: 'download', progress: { toolCallId: 'dl' } });
        expect(running.progress!.value).toEqual({ done: running.progress!.seq, total: 6 });

        const result = await run.result();
        expect(JSON.parse(result.text)).toEqual([{ type: 'json', value: { done: 6, total: 6 } }]);
        const progress: Extract<RunEvent, { type: 'tool-progress' }>[] = [];
        for await (const event of run.events()) if (event.type === 'tool-progress') progress.push(event);
        const seqs = progress.map((e) => e.progressSeq);
        // Each progress event carries the tool's own yield number and that yield's value.
        for (const e of progress) {
          expect((e.value as { done: number }).done).toBe(e.progressSeq);
        }
        expect(seqs.length).toBeGreaterThanOrEqual(2);
        expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
        expect(new Set(seqs).size).toBe(seqs.length);
        await recordHistory('streaming-progress', env, run.id);
      },
      { progressIntervalMs: 100 },
    );
  });
});

describe('events', () => {
  it('resumes from an offset without gaps or repeats, across continue-as-new', async () => {
    const note = createTool({
      name: 'note',
      description: 'Takes a note.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => `noted ${n}`,
    });
    const steps = 8;
    const model = new ScriptedLanguageModel([
      ...Array.from({ length: steps - 1 }, (_, i) => ({ toolCalls: [{ toolName: 'note', input: { n: i + 1 } }] })),
      (request: ScriptedRequest) => ({ text: `notes: ${[...toolResultsSeen(request).values()].length}` }),
    ]);
    const agent = new Agent({ name: 'scribe', instructions: 'Take notes.', model, tools: [note], maxSteps: 20 });
    await withAgentWorker(env, [agent], async ({ start }) => {
      // A tiny history budget forces several continue-as-new hops.
      const run = await start('scribe', 'take notes', { historyEventBudget: 25 });
      const firstRunId = (await run.handle.describe()).runId;

      const seen: RunEvent[] = [];
      for await (const event of run.events()) {
        seen.push(event);
        if (seen.length === 5) break;
      }
      // Reconnect from the last seen offset.
      for await (const event of run.events({ after: seen.at(-1)!.seq })) seen.push(event);

      expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
      if (seen.at(-1)?.type === 'failed') console.error('FAILED EVENT', JSON.stringify(seen.at(-1)));
      expect(seen.at(-1)).toMatchObject({ type: 'finished', text: `notes: ${steps - 1}` });
      expect(seen.filter((e) => e.type === 'continued-as-new').length).toBeGreaterThanOrEqual(2);
      expect(seen.filter((e) => e.type === 'step-started').map((e) => (e as { step: number }).step)).toEqual(
        Array.from({ length: steps }, (_, i) => i + 1),
      );

      const result = await run.result();
      expect(result.steps).toHaveLength(steps);
      expect(result.text).toBe(`notes: ${steps - 1}`);
      expect(result.messages.filter((m) => m.role === 'tool')).toHaveLength(steps - 1);
      expect(result.messages[0]).toEqual({ role: 'system', content: 'Take notes.' });
      // It really continued as new: the first execution ended that way.
      const first = await env.client.workflow.getHandle(run.id, firstRunId).describe();
      expect(first.status.name).toBe('CONTINUED_AS_NEW');
      expect(model.requests).toHaveLength(steps);
      await recordHistory('continue-as-new', env, run.id);
    });
  });
});
