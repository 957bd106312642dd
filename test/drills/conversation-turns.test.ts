// Drill: one conversation of 1,000 turns (scripted models) on its own dev server. It continues as new between turns
// under its history budget and compacts its transcript with a summary: every execution's history stays under the
// budget, every model call gets a bounded prompt with the summary in it, and the whole conversation reads back,
// paged, from history with no worker. Prints the figures docs/conversations.md quotes.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { nextRunId } from '../../src/client/history/run-chain.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { SUMMARY_TAG } from '../../src/protocol/conversation.js';
import { createAgentWorker } from '../../src/worker/create-agent-worker.js';
import { startDrillServer, type DrillServer } from './support/drill-server.js';

const TURNS = Number(process.env.DRILL_TURNS ?? 1_000);
const BUDGET = 500;
const TRIGGER = 20;

function textOf(message: ScriptedRequest['prompt'][number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

let server: DrillServer;
beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  server = await startDrillServer();
});
afterAll(async () => {
  await server?.stop();
});

describe(`drill: a ${TURNS}-turn conversation`, () => {
  it(
    'stays bounded (history per execution, prompt per model call) and reads back whole with no worker',
    { timeout: 1_800_000 },
    async () => {
      const chat = new ScriptedLanguageModel(
        Array.from({ length: TURNS }, () => (request: ScriptedRequest) => ({ text: `echo: ${request.lastUserText}` })),
      );
      let summaries = 0;
      const summarizer = new ScriptedLanguageModel(
        Array.from({ length: TURNS }, () => () => ({ text: `summary ${++summaries}` })),
      );
      const agent = new Agent({
        name: 'talker',
        instructions: 'Be brief.',
        model: chat,
        summarization: { model: summarizer, triggerMessages: TRIGGER, keepMessages: 6 },
      });
      const taskQueue = 'drill-conversation';
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
      const id = `drill-conversation-${Date.now()}`;
      const options = {
        agent: 'talker',
        userId: 'u1',
        limits: { historyEventBudget: BUDGET },
        workflow: { workflowExecutionTimeout: '60 minutes' },
      };
      const latencies: number[] = [];
      const t0 = performance.now();
      await worker.runUntil(async () => {
        const conversation = client.conversation(id, options);
        for (let turn = 1; turn <= TURNS; turn++) {
          const sent = performance.now();
          const text = await (await conversation.send(`message ${turn}`)).text();
          latencies.push(performance.now() - sent);
          expect(text).toBe(`echo: message ${turn}`);
        }
        await conversation.end();
        await conversation.ended();
      });
      const totalMs = performance.now() - t0;

      // History per execution: under the budget plus one turn's events.
      const lengths: number[] = [];
      const bytes: number[] = [];
      const described = await temporal.workflow.getHandle(id).describe();
      for (
        let runId: string | undefined = described.raw.workflowExecutionInfo?.firstRunId ?? described.runId;
        runId;
      ) {
        const history = await temporal.workflow.getHandle(id, runId).fetchHistory();
        lengths.push(history.events?.length ?? 0);
        bytes.push(Buffer.byteLength(JSON.stringify(history)));
        runId = await nextRunId(temporal.workflow, id, runId);
      }
      for (const length of lengths) expect(length).toBeLessThan(BUDGET + 60);
      // Every prompt bounded; the summary in it once compacted.
      expect(chat.requests).toHaveLength(TURNS);
      const longest = Math.max(...chat.requests.map((r) => r.prompt.length));
      expect(longest).toBeLessThanOrEqual(1 + 1 + TRIGGER + 1);
      const withSummary = chat.requests.filter((r) => r.prompt.some((m) => textOf(m).startsWith(`<${SUMMARY_TAG}>`)));
      expect(withSummary.length).toBeGreaterThan(TURNS * 0.9);

      // The whole conversation, paged, with no worker.
      const readStart = performance.now();
      const reader = client.conversation(id, options);
      let count = 0;
      let users = 0;
      let cursor: string | undefined;
      do {
        const page = await reader.history({ limit: 200, ...(cursor !== undefined ? { cursor } : {}) });
        count += page.messages.length;
        users += page.messages.filter((m) => m.role === 'user').length;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      const readMs = performance.now() - readStart;
      expect(count).toBe(TURNS * 2);
      expect(users).toBe(TURNS);
      await connection.close();

      const sorted = [...latencies].sort((a, b) => a - b);
      console.log(
        JSON.stringify({
          drill: 'conversation-turns',
          turns: TURNS,
          executions: lengths.length,
          maxEventsPerExecution: Math.max(...lengths),
          historyBytesPerTurn: Math.round(bytes.reduce((a, b) => a + b, 0) / TURNS),
          summaries,
          longestPrompt: longest,
          totalMs: Math.round(totalMs),
          turnMsP50: Math.round(sorted[Math.floor(sorted.length / 2)]!),
          turnMsP95: Math.round(sorted[Math.floor(sorted.length * 0.95)]!),
          historyReadMs: Math.round(readMs),
        }),
      );
    },
  );
});
