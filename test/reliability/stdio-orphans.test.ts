// Stdio MCP servers never outlive their worker. A real worker process lists servers that make it hard: one behind a
// `sh -c` wrapper that ignores SIGTERM and stdin's end, one that forks a grandchild into its own session and process
// group, one that exits on stdin's end leaving a grandchild in its group, and one whose listing never ends. On SIGTERM the worker drains and returns within a bound; on `kill -9` it
// can run no code at all. Either way every one of those processes (each wrote its pid to a file) is gone.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { startWatchedWorker, stopWatchedWorker, writeWorkflowBundle } from '../support/child-worker.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const WORKER = fileURLToPath(new URL('../fixtures/mcp/stdio-orphans-worker.ts', import.meta.url));

let env: TestWorkflowEnvironment;
let bundlePath: string;
beforeAll(async () => {
  env = await createTestEnv();
  bundlePath = await writeWorkflowBundle();
});
afterAll(async () => {
  await env?.teardown();
});

/** The worker with its stdout kept (it prints STOPPED once `runUntilSignal` returns). */
function startWorker(taskQueue: string, pidFile: string, extra: Record<string, string>) {
  return startWatchedWorker(
    WORKER,
    { TASK_QUEUE: taskQueue, PID_FILE: pidFile, WORKFLOW_BUNDLE: bundlePath, ...extra },
    { captureOutput: true },
  );
}

function pidsIn(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
}

/** Running (a zombie waiting for a parent that never reaps counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; the command may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

async function waitForPids(file: string, count: number): Promise<number[]> {
  await expect.poll(() => pidsIn(file).length, { timeout: 30_000 }).toBe(count);
  return pidsIn(file);
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
}

describe('stdio MCP servers never outlive their worker', () => {
  it('SIGTERM: the worker drains and returns within a bound, and no server process is left', async () => {
    const taskQueue = uniqueTaskQueue('stdio-drain');
    const pidFile = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'pids');
    // Servers that end on stdin's end, or seem to: the worker's loop then has nothing left but the close's own waits.
    const worker = await startWorker(taskQueue, pidFile, { SERVERS: 'grouped,forking' });
    let pids: number[] = [];
    try {
      const run = await new AgentClient({ client: env.client, taskQueue }).start('lister', 'go', {
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      expect((await run.result()).text).toBe('listed');
      // The two forking servers and their grandchildren.
      pids = await waitForPids(pidFile, 4);
      expect(pids.every(alive)).toBe(true);
      const signalledAt = Date.now();
      worker.child.kill('SIGTERM');
      const exited = await Promise.race([
        worker.exited,
        new Promise<undefined>((resolve) => setTimeout(resolve, 20_000)),
      ]);
      expect(exited, 'the worker did not exit within 20 s of SIGTERM').toBeDefined();
      // runUntilSignal returned (what comes after it, such as flushing spans, runs) and the process ended cleanly.
      expect(worker.output()).toContain('STOPPED');
      expect(exited).toMatchObject({ code: 0 });
      console.info(`worker exited ${exited!.at - signalledAt} ms after SIGTERM`);
      expect(pids.filter(alive)).toEqual([]);
    } finally {
      await stopWatchedWorker(worker);
      killAll(pids);
    }
  }, 90_000);

  it('kill -9 mid-listing: the wrapped server, the forked grandchild and the listing server all end', async () => {
    const taskQueue = uniqueTaskQueue('stdio-orphans');
    const pidFile = join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'pids');
    const worker = await startWorker(taskQueue, pidFile, { SERVERS: 'wrapped,forking,grouped,slow' });
    let pids: number[] = [];
    const run = await new AgentClient({ client: env.client, taskQueue }).start('lister', 'go', {
      workflow: { workflowExecutionTimeout: '2 minutes' },
    });
    try {
      // The shell and its sticky server, the forking servers and their grandchildren, and the server whose listing is
      // in flight (it answers after 10 minutes).
      pids = await waitForPids(pidFile, 7);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(pids.every(alive)).toBe(true);
      const killedAt = Date.now();
      worker.child.kill('SIGKILL');
      await worker.exited;
      await expect.poll(() => pids.filter(alive), { timeout: 15_000, interval: 200 }).toEqual([]);
      console.info(`every server process gone ${Date.now() - killedAt} ms after kill -9 of the worker`);
    } finally {
      killAll(pids);
      await run.handle.terminate('test cleanup').catch(() => undefined);
    }
  }, 90_000);
});
