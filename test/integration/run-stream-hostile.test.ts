// Watchers must never write a run to death, nor lock each other out. Every poll of a run's stream is an Update, and
// an Update's result is recorded in the run's history: a watcher that reconnects in a loop, re-reading what the run
// holds, once grew a run to 50 MB in 43 s and Temporal terminated it; five watchers that went away, their polls
// parked, left every other process with nothing to show. Here a reconnect storm (the project's client reconnecting,
// and raw polls from offset 0 as any Workflow Streams client makes them) runs beside a streamed answer, and the run
// finishes with its watchers' share of its history under the stated bound; abandoned polls never keep a newcomer
// from the run's state.
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import {
  MAX_POLLS_IN_FLIGHT,
  POLL_EVENT_BYTES,
  WATCH_BUDGET_PER_ITEM,
  WATCH_BUDGET_PER_SECOND,
  WATCH_BUDGET_START,
} from '../../workflows/run-stream.js';
import { abandonPoll, historyBytes } from '../support/hostile-watchers.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const send = createTool({
  name: 'send',
  description: 'Sends.',
  parameters: z.object({}),
  needsApproval: true,
  execute: async () => 'sent',
});

/**
 * A writer whose first step streams `chunks` pieces of `chunkChars` characters, 30 ms apart, and then asks to send
 * what it wrote (an approval waits).
 */
function writer(chunks: number, chunkChars = 5): Agent {
  const model = new ScriptedLanguageModel({
    steps: [
      {
        text: answer(chunks, chunkChars),
        toolCalls: [{ toolName: 'send', input: {}, toolCallId: 's1' }],
        stream: { chunkChars, chunkDelayMs: 30 },
      },
      { text: 'sent it' },
    ],
    stepSelection: 'assistant-turns',
  });
  return new Agent({ name: 'writer', instructions: '', model, tools: [send] });
}

function answer(chunks: number, chunkChars: number): string {
  return Array.from({ length: chunks }, (_, i) => String(i % 10).repeat(chunkChars)).join('');
}

/** A process of its own watching the run (its own `Client`, so its own subscription), from offset 0. */
function processWatching(taskQueue: string): AgentClient {
  return new AgentClient({ client: new Client({ connection: env.client.connection }), taskQueue });
}

async function collect(parts: AsyncIterable<RunStreamPart>, until?: (part: RunStreamPart) => boolean) {
  const seen: RunStreamPart[] = [];
  for await (const part of parts) {
    seen.push(part);
    if (until?.(part)) break;
  }
  return seen;
}

describe('run stream under hostile watchers', () => {
  it('a reconnect storm beside a streamed 200 KB answer leaves the run’s history within its watchers’ budget', async () => {
    await withAgentWorker(env, [writer(100, 2_000)], async ({ start, taskQueue }) => {
      const run = await start('writer', 'write', { streaming: { watched: true } });
      const startedAt = Date.now();
      // One watcher reads the whole run through the storm.
      const faithful = collect(processWatching(taskQueue).getRun(run.id).stream());
      // The storm, through the answer and the approval wait after it: resumes by the project's client (each a
      // process that reads a moment, then drops), and raw polls from offset 0 (what a resume was before: re-read
      // everything the run holds), started and left.
      const storm = async () => {
        const stormUntil = Date.now() + 8_000;
        let resumes = 0;
        let raw = 0;
        while (Date.now() < stormUntil) {
          const abort = new AbortController();
          const resume = collect(processWatching(taskQueue).getRun(run.id).stream({ signal: abort.signal }));
          setTimeout(() => abort.abort(), 150);
          await resume;
          resumes++;
          for (let i = 0; i < 4; i++) if (await abandonPoll(env.client, run.id, 0)) raw++;
        }
        return { resumes, raw };
      };
      const { resumes, raw } = await storm();
      expect(resumes).toBeGreaterThan(5);
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 10_000 }).toBe(1);
      await run.approve('s1', { approver: 'ana' });
      expect((await run.result()).text).toBe('sent it');
      const elapsedS = (Date.now() - startedAt) / 1_000;

      // The faithful watcher saw the whole answer, once, and the end.
      const parts = await faithful;
      const text = parts
        .flatMap((p) =>
          p.type === 'deltas' && p.deltas.type === 'deltas' && p.deltas.step === 1 ? p.deltas.parts : [],
        )
        .flatMap((piece) => (piece.type === 'text-delta' ? [piece.text] : []))
        .join('');
      expect(text).toBe(answer(100, 2_000));
      expect(parts.at(-1)).toMatchObject({ type: 'event', event: { type: 'finished' } });

      // The bound: what the run's own items earn (WATCH_BUDGET_PER_ITEM × each item and a poll's events), plus the
      // starting budget and what time earns. Items: every part the faithful watcher read.
      const itemBytes = await streamItemBytes(run.id);
      const bound =
        WATCH_BUDGET_START +
        WATCH_BUDGET_PER_ITEM * (itemBytes.bytes + itemBytes.count * POLL_EVENT_BYTES) +
        elapsedS * WATCH_BUDGET_PER_SECOND;
      const history = await historyBytes(env.client, run.id);
      // Temporal's encoding of an event carries more than the result (ids, times): allow a quarter more.
      expect(history.polls).toBeLessThan(bound * 1.25);
      // And in absolute terms, for a run whose answer is 200 KB (its publishes and its final message hold it twice).
      expect(history.total).toBeLessThan(3_000_000);
      console.log(
        `storm: ${resumes} resumes, ${raw} raw polls sent, ${history.pollCount} polls recorded, ` +
          `${history.polls} B of polls (bound ${Math.round(bound)} B), history ${history.total} B / ${history.events} events / ${history.executions} executions`,
      );
    });
  });

  it('polls left parked by watchers that went away never keep a new watcher from the run', async () => {
    await withAgentWorker(env, [writer(5)], async ({ start, taskQueue }) => {
      const run = await start('writer', 'write');
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 10_000 }).toBe(1);
      const end = await run.handle.query<number>('__temporal_workflow_stream_offset');
      // Twice as many processes as the run lets wait start a poll from the end and go away.
      let parked = 0;
      for (let i = 0; i < 2 * MAX_POLLS_IN_FLIGHT; i++) if (await abandonPoll(env.client, run.id, end)) parked++;
      expect(parked).toBeGreaterThanOrEqual(MAX_POLLS_IN_FLIGHT);
      // Each new process sees the run's state at once (the approval it waits for), and then what comes next.
      for (let i = 0; i < 3; i++) {
        const watcher = processWatching(taskQueue).getRun(run.id);
        const began = performance.now();
        const seen = await collect(
          watcher.stream(),
          (part) => part.type === 'event' && part.event.type === 'approval-requested',
        );
        expect(performance.now() - began).toBeLessThan(3_000);
        expect(seen.at(-1)).toMatchObject({ type: 'event', event: { type: 'approval-requested' } });
      }
      const live = collect(processWatching(taskQueue).getRun(run.id).stream());
      await new Promise((resolve) => setTimeout(resolve, 500));
      await run.approve('s1', { approver: 'ana' });
      const parts = await live;
      expect(parts.at(-1)).toMatchObject({ type: 'event', event: { type: 'finished', text: 'sent it' } });
      // The run kept room for people: the approval above was an update too, and it landed.
      expect((await run.result()).text).toBe('sent it');
    });
  });
});

/** The count and wire bytes of the items a closed run's stream held (its tail, read from a worker-less record). */
async function streamItemBytes(workflowId: string): Promise<{ count: number; bytes: number }> {
  const tail = await env.client.workflow
    .getHandle(workflowId)
    .query<{ items: { topic: string; data: string }[] }, [number]>('durable-agent.stream-tail', 0);
  return {
    count: tail.items.length,
    bytes: tail.items.reduce((sum, item) => sum + item.data.length + item.topic.length, 0),
  };
}
