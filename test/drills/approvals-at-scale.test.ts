// Drill: 200 runs started at once against one worker. Each run calls two tools in parallel, then a tool that needs
// a person's approval, decided by a test client as the approvals appear. All runs complete, every tool ran exactly
// once (counted inside the tools), every approval applied exactly once (a duplicate decision is sent for a quarter
// of the runs and must change nothing).
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { median, quantile } from '../../bench/stats.js';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { createAgentWorker } from '../../src/worker/create-agent-worker.js';
import { startDrillServer, type DrillServer } from './support/drill-server.js';

const RUNS = Number(process.env.DRILL_RUNS ?? 200);
/** How often the test client looks at each run (jittered ±25 %). */
const POLL_MS = Number(process.env.DRILL_POLL_MS ?? 1_000);

/** Executions per tool call, keyed `<workflow id>/<tool call id>`. */
const executions = new Map<string, number>();
const count = (key: string) => executions.set(key, (executions.get(key) ?? 0) + 1);

const lookup = createTool({
  name: 'lookup',
  description: 'Reads a record.',
  parameters: z.object({ id: z.string() }),
  execute: async ({ id }, options) => {
    count(`${options?.operationId}/${options?.toolContext?.callId}`);
    await new Promise((r) => setTimeout(r, 50));
    return { id, balance: 100 };
  },
});
const audit = createTool({
  name: 'audit',
  description: 'Checks a record.',
  parameters: z.object({ id: z.string() }),
  execute: async ({ id }, options) => {
    count(`${options?.operationId}/${options?.toolContext?.callId}`);
    await new Promise((r) => setTimeout(r, 50));
    return `audited ${id}`;
  },
});
const transfer = createTool({
  name: 'transfer',
  description: 'Moves money. Needs approval.',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: async ({ amount }, options) => {
    count(`${options?.operationId}/${options?.toolContext?.callId}`);
    return `moved ${amount}`;
  },
});

const agent = new Agent({
  name: 'teller',
  instructions: 'Move money carefully.',
  model: new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [
      {
        toolCalls: [
          { toolName: 'lookup', input: { id: 'acct' }, toolCallId: 'lookup' },
          { toolName: 'audit', input: { id: 'acct' }, toolCallId: 'audit' },
        ],
      },
      { toolCalls: [{ toolName: 'transfer', input: { amount: 10 }, toolCallId: 'transfer' }] },
      { text: 'transferred' },
    ],
  }),
  tools: [lookup, audit, transfer],
});

let server: DrillServer;
beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  server = await startDrillServer();
});
afterAll(async () => {
  await server?.stop();
});

describe(`drill: ${RUNS} runs at once on one worker, each with tool calls and one approval`, () => {
  it('completes every run; each tool runs once; each approval applies once', async () => {
    const taskQueue = 'drill-approvals';
    const worker = await createAgentWorker({
      agents: [agent],
      providers: new ProviderRegistry({ env: {} }),
      connection: await NativeConnection.connect({ address: server.address }),
      taskQueue,
      payloadCodec: false,
      telemetry: false,
    });
    const connection = await Connection.connect({ address: server.address });
    const client = new AgentClient({ client: new Client({ connection }), taskQueue });

    const numbers = await worker.runUntil(async () => {
      const t0 = performance.now();
      const runs: AgentRun[] = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          client.start('teller', `transfer #${i}`, {
            workflowId: `drill-approval-${i}-${Date.now()}`,
            workflow: { workflowExecutionTimeout: '10 minutes' },
          }),
        ),
      );
      const started = performance.now();
      const waitMs: number[] = [];
      const doneMs: number[] = [];
      const results = await Promise.all(
        runs.map(async (run, i) => {
          // The test client as a person would: watch the run, decide what it asks.
          const pending = await pollUntil(async () => (await run.state()).pendingApprovals[0], 120_000);
          waitMs.push(performance.now() - t0);
          await run.approve(pending.toolCallId, { approver: `clerk-${i % 7}`, reason: 'checked' });
          if (i % 4 === 0) await run.approve(pending.toolCallId, { signal: true, approver: 'duplicate' });
          const result = await run.result();
          doneMs.push(performance.now() - t0);
          return result;
        }),
      );
      const totalMs = performance.now() - t0;
      // Each approval was applied once, as the runs' events record it (events are queries: the worker answers).
      const decided = await Promise.all(
        runs.slice(0, 40).map(async (run) => {
          let n = 0;
          for await (const event of run.events()) if (event.type === 'approval-decided') n++;
          return n;
        }),
      );
      return { startMs: started - t0, totalMs, waitMs, doneMs, results, runs, decided };
    });

    expect(numbers.results.every((r) => r.text === 'transferred')).toBe(true);
    for (const run of numbers.runs) {
      for (const call of ['lookup', 'audit', 'transfer']) expect(executions.get(`${run.id}/${call}`)).toBe(1);
    }
    expect(executions.size).toBe(RUNS * 3);
    expect(numbers.decided.every((n) => n === 1)).toBe(true);
    for (const result of numbers.results) {
      expect(result.approvals).toHaveLength(1);
      expect(result.approvals[0]).toMatchObject({ approved: true, reason: 'checked' });
      expect(result.approvals[0]!.approver).toMatch(/^clerk-/);
    }
    await connection.close();

    console.log(
      JSON.stringify({
        drill: 'approvals-at-scale',
        runs: RUNS,
        startAllMs: Math.round(numbers.startMs),
        totalMs: Math.round(numbers.totalMs),
        pollMs: POLL_MS,
        queryTimeouts,
        runsPerSecond: Math.round((RUNS / numbers.totalMs) * 1000 * 10) / 10,
        approvalVisibleMs: { p50: Math.round(median(numbers.waitMs)), p95: Math.round(quantile(numbers.waitMs, 0.95)) },
        completedMs: { p50: Math.round(median(numbers.doneMs)), p95: Math.round(quantile(numbers.doneMs, 0.95)) },
      }),
    );
  });
});

/** Queries that timed out under load (the worker answers queries between workflow tasks). */
let queryTimeouts = 0;

/** Polls as a dashboard would: every POLL_MS per run, jittered, retrying a query that timed out. */
async function pollUntil<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (!`${String(error)} ${String((error as Error).cause)}`.includes('DEADLINE_EXCEEDED')) throw error;
      queryTimeouts++;
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for the run');
    await new Promise((r) => setTimeout(r, POLL_MS * (0.75 + Math.random() / 2)));
  }
}
