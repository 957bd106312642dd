// Conversations at rest: the worker's memory per idle conversation (one turn answered, waiting for the next message)
// against a bare Temporal workflow waiting on an update (`floor/workflows.ts` `floorIdle`) and an agent run waiting
// for approval, at each count of the ladder; and the follow-up latency (send → the turn's first model call started)
// against a fresh run's start latency (start → first model call started). Each population gets a fresh worker whose
// cache holds all of it; memory is RSS and V8 heap over every thread after a full GC, minus the worker's own after one
// warm-up. Then what compaction costs: two conversations of CONVERSATION_TURNS turns (default 60) sent turn by turn,
// interleaved, one compacting (a scripted summarizer past 20 messages, keeping 6) and one that never compacts: turn
// latency, worker CPU per turn (compacting turns apart), history bytes per turn (the conversation's executions and
// its turns' runs) and the summarizer activity's time, from history.
// `npm run bench:conversations` (env CONVERSATION_LADDER=1000,5000; default 100,1000). Writes
// bench/results/conversations.{json,md}.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../src/client/agent-client.js';
import { chainRunIds } from '../src/client/history/run-chain.js';
import { startDevServer } from '../src/worker/dev-server.js';
import { startChildWorker, type ChildWorker } from './child-worker.js';
import { eventTimeMs } from './history-timing.js';
import { mapLimit } from './pool.js';
import { machineInfo, table, temporalCliVersion, writeJson } from './report.js';
import { median, quantile, round } from './stats.js';
import { agentName, CHAT_COMPACTION, FINAL_TEXT, USER_PROMPT, type WorkloadSpec } from './workload.js';

const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));
const LADDER = (process.env.CONVERSATION_LADDER ?? '100,1000').split(',').map(Number);
const TURNS = Number(process.env.CONVERSATION_TURNS ?? 60);
const CHAT: WorkloadSpec = { toolSteps: 0, bytes: 64, chat: true };
const WAITING: WorkloadSpec = { toolSteps: 1, bytes: 64, approval: true };
const log = (line: string) => process.stderr.write(`${line}\n`);

type Population = 'floorIdle' | 'conversation' | 'waitingRun';

async function main(): Promise<void> {
  const startedAt = Date.now();
  const loadAtStart = round(os.loadavg()[0]!, 2);
  log('Starting a Temporal dev server...');
  const server = await startDevServer();
  const connection = await Connection.connect({ address: server.address });
  const temporal = new Client({ connection, namespace: server.namespace });
  const largest = Math.max(...LADDER);
  const rows: Record<string, unknown>[] = [];
  const startWorker = (floor: boolean, taskQueue: string) =>
    startChildWorker({
      name: floor ? 'floor' : 'durable-agent',
      args: ['--import', 'tsx', floor ? `${BENCH_DIR}floor/worker.ts` : `${BENCH_DIR}durable-agent-worker.ts`],
      cwd: ROOT_DIR,
      env: {
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: server.namespace,
        TASK_QUEUE: taskQueue,
        BENCH_SPECS: JSON.stringify([CHAT, WAITING]),
        BENCH_MAX_CACHED_WORKFLOWS: String(largest * 2 + 200),
      },
      readyTimeoutMs: 180_000,
    });
  let compaction: CompactionResult | undefined;
  try {
    {
      const taskQueue = `bench-compaction-${randomUUID()}`;
      const worker = await startWorker(false, taskQueue);
      try {
        const client = new AgentClient({ client: temporal, taskQueue, requestTimeoutMs: 120_000 });
        compaction = await measureCompaction(temporal, client, worker);
      } finally {
        await worker.stop();
      }
    }
    for (const population of ['floorIdle', 'conversation', 'waitingRun'] as Population[]) {
      const taskQueue = `bench-${population}-${randomUUID()}`;
      const worker: ChildWorker = await startWorker(population === 'floorIdle', taskQueue);
      const client = new AgentClient({ client: temporal, taskQueue, requestTimeoutMs: 120_000 });
      const add = async (id: string) => {
        if (population === 'floorIdle') {
          await temporal.workflow.start('floorIdle', {
            taskQueue,
            workflowId: id,
            workflowExecutionTimeout: '2 hours',
          });
          // Answered once: the workflow has run its first task and waits, as the others do.
          await temporal.workflow.getHandle(id).executeUpdate('floor.approve');
        } else if (population === 'conversation') {
          const conversation = client.conversation(id, {
            agent: agentName(CHAT),
            userId: 'bench',
            workflow: { workflowExecutionTimeout: '2 hours' },
          });
          const text = await (await conversation.send(USER_PROMPT)).text();
          if (text !== FINAL_TEXT) throw new Error(`conversation ${id} answered ${JSON.stringify(text)}`);
        } else {
          const run = await client.start(agentName(WAITING), USER_PROMPT, {
            workflowId: id,
            workflow: { workflowExecutionTimeout: '2 hours' },
          });
          for (let i = 0; i < 600 && (await run.state()).pendingApprovals.length === 0; i++) {
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      };
      try {
        await add(`bench-warm-${randomUUID()}`);
        const baseline = await worker.stats({ gc: true });
        const ids: string[] = [];
        for (const level of LADDER) {
          const added = Array.from({ length: level - ids.length }, () => `bench-${population}-${randomUUID()}`);
          const t0 = performance.now();
          await mapLimit(added, 20, add);
          ids.push(...added);
          // The conversations record their turn after its result: let them settle before measuring.
          await new Promise((r) => setTimeout(r, 2_000));
          const stats = await worker.stats({ gc: true });
          const row = {
            population,
            count: level,
            rssPerItemBytes: round((stats.rssBytes - baseline.rssBytes) / level, 0),
            heapPerItemBytes: round((stats.heapUsedBytes - baseline.heapUsedBytes) / level, 0),
            addMs: round(performance.now() - t0, 0),
          };
          rows.push(row);
          log(JSON.stringify(row));
        }
        const latency =
          population === 'conversation'
            ? await followUpLatency(temporal, client, ids.slice(0, 50))
            : population === 'waitingRun'
              ? await freshRunLatency(temporal, client, 50)
              : undefined;
        if (latency) {
          rows.push(latency);
          log(JSON.stringify(latency));
        }
      } finally {
        await worker.stop();
      }
    }
    const report: ConversationsReport = {
      date: new Date(startedAt).toISOString(),
      command: 'npm run bench:conversations',
      env: { CONVERSATION_LADDER: LADDER.join(','), CONVERSATION_TURNS: String(TURNS) },
      machine: machineInfo(),
      load: { start: loadAtStart, end: round(os.loadavg()[0]!, 2) },
      temporalCli: temporalCliVersion(),
      durationSeconds: round((Date.now() - startedAt) / 1000, 1),
      ladder: LADDER,
      rows,
      compaction: compaction,
    };
    const resultsDir = `${BENCH_DIR}results/`;
    mkdirSync(resultsDir, { recursive: true });
    await writeJson(`${resultsDir}conversations.json`, report);
    const md = renderMarkdown(report);
    writeFileSync(`${resultsDir}conversations.md`, md);
    process.stdout.write(md);
    log(`Wrote bench/results/conversations.{json,md} (${report.durationSeconds} s).`);
  } finally {
    await connection.close();
    await server.stop();
  }
}

/** Send → the turn's first `generate` activity started, from the turn's history, on idle conversations. */
async function followUpLatency(temporal: Client, client: AgentClient, ids: string[]) {
  const ms: number[] = [];
  for (const id of ids) {
    const sent = Date.now();
    const turn = await client.conversation(id, { agent: agentName(CHAT) }).send('and again?');
    const text = await turn.text();
    if (text !== FINAL_TEXT) throw new Error(`the follow-up of ${id} answered ${JSON.stringify(text)}`);
    ms.push((await firstModelCall(temporal, turn.id)) - sent);
  }
  return {
    measure: 'follow-up send → first model call (ms)',
    p50: round(quantile(ms, 0.5), 1),
    p95: round(quantile(ms, 0.95), 1),
  };
}

/** Start → the run's first `generate` activity started, for fresh runs. */
async function freshRunLatency(temporal: Client, client: AgentClient, runs: number) {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = Date.now();
    const run = await client.start(agentName(CHAT), USER_PROMPT, {
      workflow: { workflowExecutionTimeout: '5 minutes' },
    });
    await run.handle.result();
    ms.push((await firstModelCall(temporal, run.id)) - started);
  }
  return {
    measure: 'fresh run start → first model call (ms)',
    p50: round(quantile(ms, 0.5), 1),
    p95: round(quantile(ms, 0.95), 1),
  };
}

interface TurnSample {
  ms: number;
  cpuMs: number;
  compacted: boolean;
}

interface CompactionSide {
  turns: number;
  executions: number;
  compactions: number;
  /** Send → the answer read, ms. */
  turnMs: { p50: number; p95: number };
  /** Worker CPU (all threads) per turn, ms: every turn, the turns that compacted, the others. */
  cpuMsPerTurn: { all: number; compacting?: number; other: number };
  /** History bytes (JSON) per turn: the conversation's executions, and the turns' runs. */
  historyBytesPerTurn: { conversation: number; runs: number };
  /** The summarizer activity, scheduled → completed, ms (p50). */
  summarizeMs?: number;
  /** Summarizer activities in the conversation's history. */
  summarizeCalls: number;
}

interface CompactionResult {
  turns: number;
  triggerMessages: number;
  keepMessages: number;
  compacting: CompactionSide;
  notCompacting: CompactionSide;
}

/**
 * Two conversations of TURNS turns on one worker, sent turn by turn and interleaved (so load drift hits both):
 * one with the chat agent's compaction, one whose own `compaction` never triggers.
 */
async function measureCompaction(
  temporal: Client,
  client: AgentClient,
  worker: ChildWorker,
): Promise<CompactionResult> {
  const cpuOf = async () => {
    const stats = await worker.stats();
    return stats.cpuUserMs + stats.cpuSystemMs;
  };
  const sides = {
    compacting: { id: `bench-compacting-${randomUUID()}`, compaction: undefined },
    notCompacting: {
      id: `bench-not-compacting-${randomUUID()}`,
      compaction: { triggerMessages: 1_000_000, triggerBytes: 1_000_000_000 },
    },
  };
  const samples: Record<keyof typeof sides, TurnSample[]> = { compacting: [], notCompacting: [] };
  const conversations = Object.fromEntries(
    Object.entries(sides).map(([key, side]) => [
      key,
      client.conversation(side.id, {
        agent: agentName(CHAT),
        userId: 'bench',
        workflow: { workflowExecutionTimeout: '2 hours' },
        ...(side.compaction ? { compaction: side.compaction } : {}),
      }),
    ]),
  ) as Record<keyof typeof sides, ReturnType<AgentClient['conversation']>>;
  const compactions: Record<keyof typeof sides, number> = { compacting: 0, notCompacting: 0 };
  const runIds: Record<keyof typeof sides, string[]> = { compacting: [], notCompacting: [] };
  log(`compaction: ${TURNS} turns in each of two conversations`);
  for (let turn = 1; turn <= TURNS; turn++) {
    for (const key of (turn % 2 ? ['compacting', 'notCompacting'] : ['notCompacting', 'compacting']) as Array<
      keyof typeof sides
    >) {
      const conversation = conversations[key];
      const cpu = await cpuOf();
      const sent = performance.now();
      const handle = await conversation.send(`message ${turn}`);
      const text = await handle.text();
      const ms = performance.now() - sent;
      const cpuMs = (await cpuOf()) - cpu;
      if (text !== FINAL_TEXT) throw new Error(`turn ${turn} of ${key} answered ${JSON.stringify(text)}`);
      runIds[key].push(handle.id);
      const state = await conversation.state();
      samples[key].push({ ms, cpuMs, compacted: state.compactions > compactions[key] });
      compactions[key] = state.compactions;
    }
  }
  const side = async (key: keyof typeof sides): Promise<CompactionSide> => {
    await conversations[key].end();
    const executions = await executionsOf(temporal, sides[key].id);
    const summarize = executions.flatMap((history) => activityDurations(history, 'summarizeConversation'));
    let runBytes = 0;
    for (const id of runIds[key]) runBytes += historyBytes(await temporal.workflow.getHandle(id).fetchHistory());
    const all = samples[key];
    const cpu = (filter: (sample: TurnSample) => boolean) => {
      const picked = all.filter(filter).map((sample) => sample.cpuMs);
      return picked.length ? round(median(picked), 1) : undefined;
    };
    const ms = all.map((sample) => sample.ms);
    const compactingCpu = cpu((sample) => sample.compacted);
    return {
      turns: all.length,
      executions: executions.length,
      compactions: compactions[key],
      turnMs: { p50: round(quantile(ms, 0.5), 0), p95: round(quantile(ms, 0.95), 0) },
      cpuMsPerTurn: {
        all: cpu(() => true)!,
        ...(compactingCpu !== undefined ? { compacting: compactingCpu } : {}),
        other: cpu((sample) => !sample.compacted)!,
      },
      historyBytesPerTurn: {
        conversation: round(executions.reduce((sum, history) => sum + historyBytes(history), 0) / all.length, 0),
        runs: round(runBytes / all.length, 0),
      },
      ...(summarize.length ? { summarizeMs: round(median(summarize), 1) } : {}),
      summarizeCalls: summarize.length,
    };
  };
  const result = {
    turns: TURNS,
    ...CHAT_COMPACTION,
    compacting: await side('compacting'),
    notCompacting: await side('notCompacting'),
  };
  log(JSON.stringify(result));
  return result;
}

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

/** Every execution's history of a workflow id, first to last (continue-as-new links them). */
async function executionsOf(temporal: Client, workflowId: string): Promise<History[]> {
  const described = await temporal.workflow.getHandle(workflowId).describe();
  const firstRunId = described.raw.workflowExecutionInfo?.firstRunId ?? described.runId;
  const runIds = await chainRunIds(temporal.workflow, workflowId, firstRunId);
  return await Promise.all(runIds.map((runId) => temporal.workflow.getHandle(workflowId, runId).fetchHistory()));
}

function historyBytes(history: History): number {
  return Buffer.byteLength(JSON.stringify(history));
}

/** Scheduled → completed of each activity of `type` in one history, ms. */
function activityDurations(history: History, type: string): number[] {
  const scheduled = new Map<string, number>();
  const durations: number[] = [];
  for (const event of history.events ?? []) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === type) {
      scheduled.set(String(event.eventId), eventTimeMs(event.eventTime));
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const start = completed ? scheduled.get(String(completed.scheduledEventId)) : undefined;
    if (start !== undefined) durations.push(eventTimeMs(event.eventTime) - start);
  }
  return durations;
}

interface ConversationsReport {
  date: string;
  command: string;
  env: Record<string, string>;
  machine: ReturnType<typeof machineInfo>;
  load: { start: number; end: number };
  temporalCli: string;
  durationSeconds: number;
  ladder: number[];
  rows: Record<string, unknown>[];
  compaction: CompactionResult;
}

const kb = (bytes: unknown) => (typeof bytes === 'number' && bytes > 0 ? `${round(bytes / 1024, 1)} KB` : '(noise)');

function renderMarkdown(report: ConversationsReport): string {
  const memory = (population: Population, count: number) =>
    report.rows.find((row) => row.population === population && row.count === count) as
      | { heapPerItemBytes: number; rssPerItemBytes: number; addMs: number }
      | undefined;
  const latency = (measure: string) =>
    report.rows.find((row) => String(row.measure).startsWith(measure)) as { p50: number; p95: number } | undefined;
  const { compacting: a, notCompacting: b } = report.compaction;
  const sideRow = (label: string, side: CompactionSide) => [
    label,
    side.compactions,
    side.executions,
    `${side.turnMs.p50} / ${side.turnMs.p95}`,
    side.cpuMsPerTurn.all,
    side.cpuMsPerTurn.compacting ?? '–',
    side.cpuMsPerTurn.other,
    kb(side.historyBytesPerTurn.conversation),
    kb(side.historyBytesPerTurn.runs),
    side.summarizeMs !== undefined ? `${side.summarizeMs} (${side.summarizeCalls})` : '–',
  ];
  const followUp = latency('follow-up');
  const fresh = latency('fresh run');
  const lines = [
    `# Conversations bench (${report.date})`,
    '',
    `- Command: \`${Object.entries(report.env)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ')} ${report.command}\`, ${report.durationSeconds} s`,
    `- Machine: ${report.machine.cpuModel}, ${report.machine.cpuCount} cores, ${report.machine.memoryGiB} GiB, ` +
      `Node ${report.machine.node}; load average (1 min) ${report.load.start} at start, ${report.load.end} at end`,
    `- Temporal dev server: ${report.temporalCli}`,
    '',
    '## Idle memory',
    '',
    'A fresh worker per population whose cache holds all of it; RSS and V8 heap over every thread after a full GC, ' +
      "minus the worker's own after one warm-up, per item. An idle conversation has answered one turn and waits for " +
      'the next message; the bare workflow waits on an update; the agent run waits for approval.',
    '',
    table(
      [
        'on one worker',
        'bare workflow: heap / RSS',
        'idle conversation: heap / RSS',
        'run waiting for approval: heap / RSS',
        'conversation ÷ bare (heap)',
        'time to add the conversations',
      ],
      report.ladder.map((count) => {
        const floor = memory('floorIdle', count);
        const conversation = memory('conversation', count);
        const waiting = memory('waitingRun', count);
        const pair = (row: typeof floor) => (row ? `${kb(row.heapPerItemBytes)} / ${kb(row.rssPerItemBytes)}` : '–');
        return [
          count.toLocaleString('en-US'),
          pair(floor),
          pair(conversation),
          pair(waiting),
          floor && conversation ? `${round(conversation.heapPerItemBytes / floor.heapPerItemBytes, 2)}×` : '–',
          conversation ? `${round(conversation.addMs / 1000, 1)} s` : '–',
        ];
      }),
    ),
    '',
    'Target (issue 20): an idle conversation ≤ 1.5× the bare workflow (heap): ' +
      report.ladder
        .map((count) => {
          const floor = memory('floorIdle', count);
          const conversation = memory('conversation', count);
          if (!floor || !conversation) return `${count}: –`;
          const ratio = round(conversation.heapPerItemBytes / floor.heapPerItemBytes, 2);
          return `${count}: ${ratio <= 1.5 ? 'met' : 'missed'} (${ratio}×)`;
        })
        .join(', ') +
      '.',
    '',
    '## Follow-up latency',
    '',
    table(
      ['', 'p50 ms', 'p95 ms'],
      [
        ['follow-up: send → its first model call started (50 idle conversations)', followUp?.p50, followUp?.p95],
        ['fresh run: start → its first model call started (50 runs)', fresh?.p50, fresh?.p95],
      ],
    ),
    '',
    '## What compaction costs',
    '',
    `Two conversations of ${report.compaction.turns} turns on one worker, sent turn by turn and interleaved; one ` +
      `compacts past ${report.compaction.triggerMessages} messages keeping ${report.compaction.keepMessages} (a ` +
      'scripted summarizer that answers at once, in its own activity), the other never compacts. CPU: the worker ' +
      "process's CPU time over one turn (send → answer read). History: JSON bytes of the conversation's executions " +
      "and of its turns' runs, ÷ turns.",
    '',
    table(
      [
        'conversation',
        'compactions',
        'executions',
        'turn ms (p50 / p95)',
        'CPU ms per turn',
        'compacting turns',
        'other turns',
        'conversation history per turn',
        "turns' runs per turn",
        'summarizer ms p50 (calls)',
      ],
      [sideRow('compacting', a), sideRow('never compacting', b)],
    ),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

async function firstModelCall(temporal: Client, workflowId: string): Promise<number> {
  const events = (await temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Set<string>();
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'generate') {
      scheduled.add(String(event.eventId));
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.has(String(started.scheduledEventId))) return eventTimeMs(event.eventTime);
  }
  throw new Error(`no model call in ${workflowId}`);
}

await main();
