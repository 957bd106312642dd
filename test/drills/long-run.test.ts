// Drill: one run of 500 steps (499 tool calls and a final answer) that continues as new several times on the way.
// A client reading `events()` from the start and `result()` at the end sees one run: one workflow id, every step
// once and in order, event sequence numbers without gaps, the whole transcript.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../../src/models/scripted-model.js';
import type { RunEvent } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { createAgentWorker } from '../../src/worker/create-agent-worker.js';
import { startDrillServer, type DrillServer } from './support/drill-server.js';

const STEPS = Number(process.env.DRILL_STEPS ?? 500);

let ticks = 0;
const tick = createTool({
  name: 'tick',
  description: 'Counts.',
  parameters: z.object({ n: z.number() }),
  execute: async ({ n }) => {
    ticks++;
    return n;
  },
});
const steps: ScriptedReply[] = Array.from({ length: STEPS - 1 }, (_, i) => ({
  toolCalls: [{ toolName: 'tick', input: { n: i + 1 }, toolCallId: `t${i + 1}` }],
}));
steps.push({ text: `counted to ${STEPS - 1}` });
const agent = new Agent({
  name: 'marathon',
  instructions: 'Count.',
  maxSteps: STEPS + 10,
  model: new ScriptedLanguageModel({ stepSelection: 'assistant-turns', steps }),
  tools: [tick],
});

let server: DrillServer;
beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  server = await startDrillServer();
});
afterAll(async () => {
  await server?.stop();
});

describe(`drill: a ${STEPS}-step run across continue-as-new`, () => {
  it('reads as one run through events() and result()', async () => {
    const taskQueue = 'drill-long';
    const worker = await createAgentWorker({
      agents: [agent],
      providers: new ProviderRegistry({ env: {} }),
      connection: await NativeConnection.connect({ address: server.address }),
      taskQueue,
      payloadCodec: false,
      telemetry: false,
    });
    const connection = await Connection.connect({ address: server.address });
    const temporal = new Client({ connection });
    const client = new AgentClient({ client: temporal, taskQueue });

    const outcome = await worker.runUntil(async () => {
      const t0 = performance.now();
      // A small history budget, so the run continues as new every hundred steps or so.
      const run = await client.start('marathon', 'count', {
        historyEventBudget: 1_500,
        workflow: { workflowExecutionTimeout: '20 minutes' },
      });
      const events: RunEvent[] = [];
      const seqs: number[] = [];
      for await (const event of run.events({ pollIntervalMs: 500 })) {
        events.push(event);
        seqs.push(event.seq);
      }
      const result = await run.result();
      const totalMs = performance.now() - t0;
      const executions: string[] = [];
      for await (const execution of temporal.workflow.list({ query: `WorkflowId = '${run.id}'` })) {
        executions.push(execution.runId);
      }
      return { run, events, seqs, result, totalMs, executions };
    });
    await connection.close();

    const { events, seqs, result } = outcome;
    expect(result.text).toBe(`counted to ${STEPS - 1}`);
    expect(result.steps).toHaveLength(STEPS);
    expect(result.steps.map((s) => s.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
    expect(result.toolResults.map((r) => r.toolCallId)).toEqual(
      Array.from({ length: STEPS - 1 }, (_, i) => `t${i + 1}`),
    );
    expect(result.messages).toHaveLength(2 + 2 * (STEPS - 1) + 1);
    expect(ticks).toBe(STEPS - 1);
    // More than one execution behind the one workflow id.
    const continuations = events.filter((e) => e.type === 'continued-as-new').length;
    expect(continuations).toBeGreaterThanOrEqual(3);
    expect(outcome.executions.length).toBe(continuations + 1);
    // One stream of events: sequence numbers 1..n without gap or repeat, every step finished once, one ending.
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(events.filter((e) => e.type === 'step-finished').map((e) => (e as { step: number }).step)).toEqual(
      Array.from({ length: STEPS }, (_, i) => i + 1),
    );
    expect(events.filter((e) => e.type === 'tool-result')).toHaveLength(STEPS - 1);
    expect(events.filter((e) => e.type === 'finished')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('finished');

    console.log(
      JSON.stringify({
        drill: 'long-run',
        steps: STEPS,
        continuations,
        events: events.length,
        totalMs: Math.round(outcome.totalMs),
        msPerStep: Math.round((outcome.totalMs / STEPS) * 10) / 10,
      }),
    );
  });
});
