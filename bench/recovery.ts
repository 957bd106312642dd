// `npm run bench:recovery`: how long a run takes to recover after its worker is SIGKILLed in the middle of a tool.
// Two worker processes poll one task queue; the one running the tool is killed; the time until the tool's next
// attempt starts on the other worker is the recovery time. Goal: within the tool's heartbeat timeout plus 5 s.
// Prints a table and writes bench/results/recovery.json. RECOVERY_TRIALS (default 5) trials per heartbeat timeout.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { format, resolveConfig } from 'prettier';
import { DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client.js';
import { workflowsPath } from '../src/worker/workflow-paths.js';
import { startDrillServer } from '../test/drills/support/drill-server.js';
import { median, round } from './stats.js';

const TRIALS = Number(process.env.RECOVERY_TRIALS ?? 5);
const HEARTBEAT_TIMEOUTS_S = [2, 5];
const WORKER = fileURLToPath(new URL('./recovery-worker.ts', import.meta.url));
const RESULTS = fileURLToPath(new URL('./results/recovery.json', import.meta.url));
const log = (line: string) => process.stderr.write(`[recovery] ${line}\n`);

interface Trial {
  heartbeatTimeoutS: number;
  recoveryMs: number;
  killToResultMs: number;
}

async function main(): Promise<void> {
  const server = await startDrillServer();
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-recovery-'));
  const bundlePath = join(dir, 'workflows.js');
  writeFileSync(
    bundlePath,
    (await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: new DefaultLogger('WARN') })).code,
  );
  const connection = await Connection.connect({ address: server.address });
  const trials: Trial[] = [];
  const workers: ChildProcess[] = [];
  try {
    for (const heartbeatTimeoutS of HEARTBEAT_TIMEOUTS_S) {
      const taskQueue = `recovery-${heartbeatTimeoutS}s`;
      const logFile = join(dir, `${taskQueue}.log`);
      const start = () =>
        startWorker({
          TEMPORAL_ADDRESS: server.address,
          TASK_QUEUE: taskQueue,
          LOG_FILE: logFile,
          WORK_MS: String(heartbeatTimeoutS * 1000 + 3000),
          HEARTBEAT_TIMEOUT: `${heartbeatTimeoutS}s`,
          WORKFLOW_BUNDLE: bundlePath,
        });
      workers.push(await start(), await start());
      const client = new AgentClient({ client: new Client({ connection }), taskQueue });
      for (let trial = 1; trial <= TRIALS; trial++) {
        const run = await client.start('recover', 'go', { workflow: { workflowExecutionTimeout: '5 minutes' } });
        const first = await waitForLine(logFile, new RegExp(` start ${run.id} attempt=1 pid=(\\d+)`));
        const victimIndex = workers.findIndex((w) => w.pid === Number(first.match[1]));
        const victim = workers[victimIndex]!;
        const killedAt = Date.now();
        victim.kill('SIGKILL');
        const second = await waitForLine(logFile, new RegExp(` start ${run.id} attempt=2 `));
        const recoveryMs = Number(second.line.split(' ')[0]) - killedAt;
        await run.result();
        const killToResultMs = Date.now() - killedAt;
        trials.push({ heartbeatTimeoutS, recoveryMs, killToResultMs });
        log(`heartbeat ${heartbeatTimeoutS}s trial ${trial}: next attempt ${recoveryMs} ms after the kill`);
        workers[victimIndex] = await start();
      }
      for (const worker of workers.splice(0)) worker.kill('SIGKILL');
    }
  } finally {
    for (const worker of workers) worker.kill('SIGKILL');
    await connection.close();
    await server.stop();
  }

  const rows = HEARTBEAT_TIMEOUTS_S.map((heartbeatTimeoutS) => {
    const mine = trials.filter((t) => t.heartbeatTimeoutS === heartbeatTimeoutS);
    const recovery = mine.map((t) => t.recoveryMs);
    return {
      heartbeatTimeoutS,
      trials: mine.length,
      recoveryMedianS: round(median(recovery) / 1000, 2),
      recoveryMaxS: round(Math.max(...recovery) / 1000, 2),
      goalS: heartbeatTimeoutS + 5,
      withinGoal: recovery.every((ms) => ms <= (heartbeatTimeoutS + 5) * 1000),
    };
  });
  console.log('| heartbeat timeout | trials | recovery median | recovery max | goal | within goal |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.heartbeatTimeoutS} s | ${r.trials} | ${r.recoveryMedianS} s | ${r.recoveryMaxS} s | ≤ ${r.goalS} s | ${r.withinGoal ? 'yes' : 'NO'} |`,
    );
  }
  mkdirSync(join(RESULTS, '..'), { recursive: true });
  const report = { date: new Date().toISOString(), cpus: os.cpus().length, loadavg: os.loadavg(), rows, trials };
  // Formatted as the repository formats JSON, so the committed results pass `prettier --check`.
  writeFileSync(RESULTS, await format(JSON.stringify(report), { ...(await resolveConfig(RESULTS)), parser: 'json' }));
  if (!rows.every((r) => r.withinGoal)) process.exitCode = 1;
}

async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(WORKER, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`recovery worker exited early (${code})`)));
  });
  return child;
}

async function waitForLine(file: string, pattern: RegExp): Promise<{ line: string; match: RegExpMatchArray }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
    for (const line of lines) {
      const match = line.match(pattern);
      if (match) return { line, match };
    }
    if (Date.now() > deadline) throw new Error(`no line matching ${pattern} in ${file}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

await main();
