// Conversations at rest: the worker's memory per idle conversation (one turn answered, waiting for the next message)
// against a bare Temporal workflow waiting on an update (`floor/workflows.ts` `floorIdle`) and an agent run waiting
// for approval, at each count of the ladder; and the follow-up latency (send → the turn's first model call started)
// against a fresh run's start latency (start → first model call started). Each population gets a fresh worker whose
// cache holds all of it; memory is RSS and V8 heap over every thread after a full GC, minus the worker's own after one
// warm-up. `npm run bench:conversations` (env CONVERSATION_LADDER=1000,5000; default 100,1000).
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../src/client/agent-client.js';
import { startDevServer } from '../src/worker/dev-server.js';
import { startChildWorker, type ChildWorker } from './child-worker.js';
import { mapLimit } from './pool.js';
import { quantile, round } from './stats.js';
import { agentName, USER_PROMPT, type WorkloadSpec } from './workload.js';

const BENCH_DIR = fileURLToPath(new URL('./', import.meta.url));
const ROOT_DIR = fileURLToPath(new URL('../', import.meta.url));
const LADDER = (process.env.CONVERSATION_LADDER ?? '100,1000').split(',').map(Number);
const CHAT: WorkloadSpec = { toolSteps: 0, bytes: 64 };
const WAITING: WorkloadSpec = { toolSteps: 1, bytes: 64, approval: true };
const log = (line: string) => process.stderr.write(`${line}\n`);

type Population = 'floorIdle' | 'conversation' | 'waitingRun';

async function main(): Promise<void> {
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
  try {
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
          await (await conversation.send(USER_PROMPT)).result();
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
  } finally {
    await connection.close();
    await server.stop();
  }
  process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), ladder: LADDER, rows }, null, 2)}\n`);
}

/** Send → the turn's first `generate` activity started, from the turn's history, on idle conversations. */
async function followUpLatency(temporal: Client, client: AgentClient, ids: string[]) {
  const ms: number[] = [];
  for (const id of ids) {
    const sent = Date.now();
    const turn = await client.conversation(id, { agent: agentName(CHAT) }).send('and again?');
    await turn.result().catch(() => undefined);
    ms.push((await firstModelCall(temporal, turn.id)) - sent);
  }
  return { measure: 'follow-up send → first model call (ms)', p50: quantile(ms, 0.5), p95: quantile(ms, 0.95) };
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
  return { measure: 'fresh run start → first model call (ms)', p50: quantile(ms, 0.5), p95: quantile(ms, 0.95) };
}

async function firstModelCall(temporal: Client, workflowId: string): Promise<number> {
  const events = (await temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Set<string>();
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'generate') {
      scheduled.add(String(event.eventId));
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.has(String(started.scheduledEventId))) {
      const time = event.eventTime!;
      return Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
    }
  }
  throw new Error(`no model call in ${workflowId}`);
}

await main();
