// `npm run bench:streaming`: what live model deltas deliver and cost, on one dev server this script starts.
// (1) Delivery: runs whose model writes timed tokens, each token stamped with the wall-clock time the model emitted
//     it (the worker runs in this process, so watcher and model share one clock); watchers (each on its own
//     Temporal client, so each is its own subscription) read the run's stream and note when each token arrives.
//     First token and later tokens, p50 and p95, for 1, 10 and 50 runs at once with 1 and 3 watchers each.
// (2) Cost: one step of 500 tokens over 10 s, streamed and not (`streaming: false`), no watcher: history events,
//     payload bytes, signals, updates and workflow tasks per step, and this process's CPU per step.
// Medians and p95 over every token of every run. Writes bench/results/streaming.{json,md}.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { Agent } from '../src/agent/agent.js';
import { AgentClient } from '../src/client/agent-client.js';
import { ScriptedLanguageModel } from '../src/models/scripted-model.js';
import { DEFAULT_DELTA_INTERVAL_MS } from '../src/protocol/run-stream.js';
import { createAgentWorker } from '../src/worker/create-agent-worker.js';
import { DEV_SERVER_DYNAMIC_CONFIG, startDevServer } from '../src/worker/dev-server.js';
import { median, quantile, round } from './stats.js';

const QUICK = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
const log = (line: string) => process.stderr.write(`[bench:streaming] ${line}\n`);

/** A scripted model whose every text delta is replaced by the time it is emitted: `<epoch ms>|`. */
class StampingModel extends ScriptedLanguageModel {
  override async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { stream, ...rest } = await super.doStream(options);
    const stamp = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      transform(part, controller) {
        controller.enqueue(part.type === 'text-delta' ? { ...part, delta: `${Date.now()}|` } : part);
      },
    });
    return { ...rest, stream: stream.pipeThrough(stamp) };
  }
}

function writer(name: string, tokens: number, delayMs: number, stamping: boolean, streaming = true): Agent {
  const steps = [{ text: 'x'.repeat(tokens), stream: { chunkChars: 1, chunkDelayMs: delayMs } }];
  const options = { steps, stepSelection: 'assistant-turns' as const };
  const model = stamping ? new StampingModel(options) : new ScriptedLanguageModel(options);
  return new Agent({ name, instructions: '', model, maxSteps: 2, streaming });
}

/** Reads a run's stream and returns each token's delivery latency (ms), in emission order. */
async function watch(client: AgentClient, runId: string): Promise<number[]> {
  const latencies: number[] = [];
  for await (const part of client.getRun(runId).stream()) {
    if (part.type !== 'deltas' || part.deltas.type !== 'deltas') continue;
    const arrived = Date.now();
    for (const piece of part.deltas.parts) {
      if (piece.kind !== 'text') continue;
      for (const stamp of piece.text.split('|')) if (stamp) latencies.push(arrived - Number(stamp));
    }
  }
  return latencies;
}

interface DeliveryRow {
  runs: number;
  watchers: number;
  firstP50: number;
  firstP95: number;
  laterP50: number;
  laterP95: number;
}

async function delivery(clients: AgentClient[], runs: number, watchers: number): Promise<DeliveryRow> {
  const started = await Promise.all(Array.from({ length: runs }, () => clients[0]!.start('stamping', 'write')));
  const per = await Promise.all(
    started.flatMap((run) => clients.slice(0, watchers).map((client) => watch(client, run.id))),
  );
  for (const run of started) await run.result();
  const first = per.map((latencies) => latencies[0]!).filter((x) => x !== undefined);
  const later = per.flatMap((latencies) => latencies.slice(1));
  return {
    runs,
    watchers,
    firstP50: round(median(first)),
    firstP95: round(quantile(first, 0.95)),
    laterP50: round(median(later)),
    laterP95: round(quantile(later, 0.95)),
  };
}

interface CostRow {
  mode: 'streamed' | 'not streamed';
  events: number;
  payloadBytes: number;
  signals: number;
  updates: number;
  workflowTasks: number;
  cpuMs: number;
}

async function cost(client: AgentClient, agent: string, reps: number): Promise<CostRow> {
  const rows: Omit<CostRow, 'mode'>[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const cpu = process.cpuUsage();
    const run = await client.start(agent, 'write');
    await run.result();
    const used = process.cpuUsage(cpu);
    const history = await run.handle.fetchHistory();
    let payloadBytes = 0;
    const count = (value: unknown): void => {
      if (value instanceof Uint8Array) return;
      if (Array.isArray(value)) return value.forEach(count);
      if (value && typeof value === 'object') {
        for (const [key, inner] of Object.entries(value)) {
          if (key === 'data' && inner instanceof Uint8Array) payloadBytes += inner.byteLength;
          else count(inner);
        }
      }
    };
    count(history.events);
    const events = history.events ?? [];
    rows.push({
      events: events.length,
      payloadBytes,
      signals: events.filter((e) => e.workflowExecutionSignaledEventAttributes).length,
      updates: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
      workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
      cpuMs: (used.user + used.system) / 1000,
    });
  }
  const med = (key: keyof Omit<CostRow, 'mode'>) => round(median(rows.map((row) => row[key])));
  return {
    mode: agent === 'costly-streamed' ? 'streamed' : 'not streamed',
    events: med('events'),
    payloadBytes: med('payloadBytes'),
    signals: med('signals'),
    updates: med('updates'),
    workflowTasks: med('workflowTasks'),
    cpuMs: med('cpuMs'),
  };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  log('Starting a Temporal dev server...');
  const server = await startDevServer();
  try {
    const tokens = QUICK ? 40 : 100;
    const costTokens = QUICK ? 100 : 500;
    const agents = [
      writer('stamping', tokens, 20, true),
      writer('costly-streamed', costTokens, 10_000 / costTokens, false),
      writer('costly-plain', costTokens, 10_000 / costTokens, false, false),
    ];
    const connection = await NativeConnection.connect({ address: server.address });
    const taskQueue = 'bench-streaming';
    const worker = await createAgentWorker({ agents, connection, namespace: server.namespace, taskQueue });
    const clientConnection = await Connection.connect({ address: server.address });
    // One Temporal client per watcher: each reads through its own subscription, as separate processes would.
    const clients = Array.from(
      { length: 3 },
      () => new AgentClient({ client: new Client({ connection: clientConnection }), taskQueue }),
    );
    const rows: DeliveryRow[] = [];
    const costs: CostRow[] = [];
    await worker.runUntil(async () => {
      await delivery(clients, 1, 1); // warm-up
      for (const runs of QUICK ? [1, 10] : [1, 10, 50]) {
        for (const watchers of [1, 3]) {
          log(`delivery: ${runs} runs, ${watchers} watchers each`);
          rows.push(await delivery(clients, runs, watchers));
        }
      }
      const reps = QUICK ? 1 : 3;
      for (const agent of ['costly-plain', 'costly-streamed']) {
        log(`cost: ${agent}, ${reps} runs of ${costTokens} tokens over 10 s`);
        costs.push(await cost(clients[0]!, agent, reps));
      }
    });
    const report = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg().map((l) => round(l)) },
      server: { dynamicConfig: DEV_SERVER_DYNAMIC_CONFIG },
      batchIntervalMs: DEFAULT_DELTA_INTERVAL_MS,
      tokensPerRun: tokens,
      tokenIntervalMs: 20,
      delivery: rows,
      cost: { tokens: costTokens, overSeconds: 10, rows: costs },
    };
    const md = [
      `# Streaming bench (${report.date})`,
      '',
      `Machine: ${report.machine.cpus} cores, load average ${report.machine.loadavg.join(' ')}. Batch interval ` +
        `${DEFAULT_DELTA_INTERVAL_MS} ms; ${tokens} tokens per run, one every 20 ms; latency = token emitted by the ` +
        "model → the watcher's part arrived (ms).",
      '',
      '| runs | watchers each | first token p50 | first token p95 | later tokens p50 | later tokens p95 |',
      '| ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (r) => `| ${r.runs} | ${r.watchers} | ${r.firstP50} | ${r.firstP95} | ${r.laterP50} | ${r.laterP95} |`,
      ),
      '',
      `Cost of one step of ${costTokens} tokens over 10 s, no watcher (medians):`,
      '',
      '| step | history events | payload bytes | signals | updates | workflow tasks | CPU ms (worker + client process) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...costs.map(
        (c) =>
          `| ${c.mode} | ${c.events} | ${c.payloadBytes} | ${c.signals} | ${c.updates} | ${c.workflowTasks} | ${c.cpuMs} |`,
      ),
      '',
    ].join('\n');
    const dir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}streaming.json`, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(`${dir}streaming.md`, md);
    process.stdout.write(`${md}\n`);
  } finally {
    await server.stop();
  }
}

await main();
