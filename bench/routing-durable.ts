// Tool search end to end in a durable run, over a 1,000-tool pool: a scripted model calls searchTools on every step,
// and the run's history says how long each search step took, from the model's answer (its `generate` activity
// completed) to the next model call being scheduled — a workflow task, the `rankTools` activity, another workflow
// task. The first search of a run also warms the worker's embedding cache (`embedBatch` activities); the others are
// warm. A run whose model calls a no-op tool on every step gives the same window for an `executeTool` step, the
// durable cost any tool step pays. Rankings: lexical (BM25+), `offline/hashed-bow`, and all-MiniLM-L6-v2 behind the
// OpenAI-compatible server of test/support (its own request count checks one request per warm search).
// Not a test; run it with `npx tsx bench/routing-durable.ts` (ROUTING_BENCH_SEARCHES=n, default 30).
import { cpus, loadavg } from 'node:os';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { AgentClient } from '../src/client/agent-client.js';
import { ProviderRegistry } from '../src/models/provider-registry.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../src/models/scripted-model.js';
import type { ToolRoutingConfig } from '../src/routing/types.js';
import { createTool } from '../src/tool/tool.js';
import { createAgentWorker } from '../src/worker/create-agent-worker.js';
import { startDevServer } from '../src/worker/dev-server.js';
import { fixtureQueries } from '../test/fixtures/routing/load-fixture.js';
import { historyJson, recordedActivities } from '../test/support/activity-history.js';
import { LOCAL_EMBEDDING_MODEL_ID, startEmbeddingServer } from '../test/support/embedding-server.js';
import { POOL_SIZE, thousandTools } from './routing-pool.js';
import { median, quantile, round } from './stats.js';

const SEARCHES = Number(process.env.ROUTING_BENCH_SEARCHES ?? 30);

interface Row {
  ranking: string;
  firstStepMs: number;
  warmStepMedianMs: number;
  warmStepP90Ms: number;
  rankActivityMedianMs: number;
  embedBatches: number;
  embeddingCallsPerWarmSearch: number | undefined;
  serverRequestsPerWarmSearch?: number;
}

/** A script: one call per step (a search with the next labelled query, or a ping), then an answer. */
function script(tool: 'searchTools' | 'ping'): ScriptedLanguageModel {
  const queries = fixtureQueries().map((q) => q.query);
  const steps: ScriptedReply[] = Array.from({ length: SEARCHES + 1 }, (_, i) => ({
    toolCalls: [{ toolName: tool, input: tool === 'ping' ? {} : { query: queries[i % queries.length]! } }],
  }));
  return new ScriptedLanguageModel({ steps: [...steps, { text: 'done' }], stepSelection: 'assistant-turns' });
}

/**
 * Per tool step of a run's history: ms from the step's `generate` completing to the next `generate` being
 * scheduled, and how long each activity of `type` ran (started → completed).
 */
function stepTimes(history: Parameters<typeof historyJson>[0], type: string): { steps: number[]; activity: number[] } {
  const events = historyJson(history).events as Array<{
    eventId: string;
    eventTime: string;
    eventType: string;
    activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
    activityTaskStartedEventAttributes?: { scheduledEventId: string };
    activityTaskCompletedEventAttributes?: { scheduledEventId: string };
  }>;
  const typeOf = new Map<string, string>();
  const startedAt = new Map<string, number>();
  const generateDone: number[] = [];
  const generateScheduled: number[] = [];
  const activity: number[] = [];
  for (const event of events) {
    const at = Date.parse(event.eventTime);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const name = scheduled.activityType?.name ?? '';
      typeOf.set(String(event.eventId), name);
      if (name === 'generate') generateScheduled.push(at);
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) startedAt.set(String(started.scheduledEventId), at);
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const name = typeOf.get(String(completed.scheduledEventId));
      if (name === 'generate') generateDone.push(at);
      if (name === type) activity.push(at - startedAt.get(String(completed.scheduledEventId))!);
    }
  }
  // The last generate answered with text: the tool steps are all but it.
  const steps = generateDone.slice(0, -1).map((done, i) => generateScheduled[i + 1]! - done);
  return { steps, activity };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const temporal = await startDevServer();
  const embeddings = await startEmbeddingServer({ threads: 1 });
  const connection = await NativeConnection.connect({ address: temporal.address });
  try {
    const tools = thousandTools().getAllTools();
    const ping = createTool({
      name: 'ping',
      description: 'Answers pong.',
      parameters: z.object({}),
      execute: () => 'pong',
    });
    const searchAgent = (name: string, toolRouting: ToolRoutingConfig) =>
      new Agent({
        name,
        instructions: '',
        model: script('searchTools'),
        tools,
        toolRouting: { topK: 3, ...toolRouting },
        maxSteps: SEARCHES + 5,
      });
    const agents = [
      searchAgent('lexical', {}),
      searchAgent('offline', { embedding: 'offline/hashed-bow' }),
      searchAgent('minilm', { embedding: `openai/${LOCAL_EMBEDDING_MODEL_ID}` }),
      new Agent({
        name: 'tool-step',
        instructions: '',
        model: script('ping'),
        tools: [ping],
        maxSteps: SEARCHES + 5,
      }),
    ];
    const taskQueue = 'bench-routing-durable';
    const worker = await createAgentWorker({
      agents,
      connection,
      namespace: temporal.namespace,
      taskQueue,
      providers: new ProviderRegistry({
        env: { OPENAI_API_KEY: 'not-needed-locally', OPENAI_BASE_URL: embeddings.baseURL },
      }),
    });
    const client = await AgentClient.connect({ address: temporal.address, taskQueue, payloadCodec: false });
    const rows: Row[] = [];
    let toolStep: number[] = [];
    await worker.runUntil(async () => {
      for (const agent of agents) {
        const requestsBefore = (await embeddings.stats()).requests;
        const run = await client.start(agent.name, 'Find the tools I need.');
        const result = await run.result();
        if (result.text !== 'done' || result.steps.length !== SEARCHES + 2) {
          throw new Error(`${agent.name}: ${result.steps.length} steps, text ${JSON.stringify(result.text)}`);
        }
        const history = await run.handle.fetchHistory();
        if (agent.name === 'tool-step') {
          toolStep = stepTimes(history, 'executeTool').steps;
          continue;
        }
        const requests = (await embeddings.stats()).requests - requestsBefore;
        const { steps, activity } = stepTimes(history, 'rankTools');
        const activities = recordedActivities(history);
        const ranked = activities.filter((a) => a.type === 'rankTools');
        const warmCalls = ranked.slice(1).map((a) => (a.result as { stats: { embeddingCalls: number } }).stats);
        const batches = activities.filter((a) => a.type === 'embedBatch');
        const embedBatches = batches.length;
        const batchCalls = batches.reduce((sum, a) => sum + (a.result as { calls: number }).calls, 0);
        const warm = steps.slice(1);
        rows.push({
          ranking: agent.name,
          firstStepMs: steps[0]!,
          warmStepMedianMs: round(median(warm), 1),
          warmStepP90Ms: round(quantile(warm, 0.9), 1),
          rankActivityMedianMs: round(median(activity.slice(1)), 1),
          embedBatches,
          embeddingCallsPerWarmSearch:
            agent.name === 'lexical'
              ? undefined
              : warmCalls.reduce((sum, s) => sum + s.embeddingCalls, 0) / warmCalls.length,
          ...(agent.name === 'minilm' ? { serverRequestsPerWarmSearch: (requests - batchCalls - 1) / SEARCHES } : {}),
        });
        console.error(`routing-durable bench: ${agent.name} done`);
      }
    });
    const lines = rows.map(
      (r) =>
        `| ${r.ranking} | ${r.firstStepMs} | ${r.embedBatches} | ${r.warmStepMedianMs} | ${r.warmStepP90Ms} | ` +
        `${r.rankActivityMedianMs} | ${r.embeddingCallsPerWarmSearch ?? '–'} | ${r.serverRequestsPerWarmSearch ?? '–'} |`,
    );
    console.log(
      [
        `Tool search steps in a durable run over a ${POOL_SIZE}-tool pool: ${SEARCHES + 1} searches per run (top 3), ` +
          'times from the run history (ms resolution).',
        `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}; Node ${process.version}.`,
        '',
        '| ranking | first search step (ms) | embedBatch activities | warm search step median (ms) | warm p90 (ms) | rankTools activity median (ms) | embedding calls / warm search | server requests / warm search |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        ...lines,
        '',
        `A no-op tool step (executeTool) on the same worker: median ${round(median(toolStep.slice(1)), 1)} ms, ` +
          `p90 ${round(quantile(toolStep.slice(1), 0.9), 1)} ms.`,
      ].join('\n'),
    );
  } finally {
    await connection.close();
    await embeddings.close();
    await temporal.stop();
  }
}

await main();
