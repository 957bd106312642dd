// The dev server helper itself: a named namespace, and state that survives a restart when a database file is
// kept (the guarantee crash-and-resume tests build on).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { afterAll, describe, expect, it } from 'vitest';
import { type DevServer, resolveTemporalBinary, startDevServer } from '../../src/worker/dev-server.js';
import { createActivities } from '../fixtures/smoke/activities.js';
import { approveSignal, smokeWorkflow, statusQuery } from '../fixtures/smoke/workflows.js';
import { bundleWorkflows, createTestEnv, randomWorkflowId, uniqueTaskQueue } from '../support/temporal.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/smoke/workflows.ts', import.meta.url));

describe('startDevServer', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'durable-agent-dev-server-'));
  const servers: DevServer[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the Temporal CLI', () => {
    expect(resolveTemporalBinary()).toMatch(/temporal(\.exe)?$/);
  });

  it('keeps workflows across a restart with the same database file, on the same address', async () => {
    const options = { namespace: 'restart-test', dbFilename: join(dataDir, 'temporal.sqlite') };
    const first = await startDevServer(options);
    servers.push(first);
    expect(first.namespace).toBe('restart-test');

    const env = await createTestEnv(first);
    try {
      const taskQueue = uniqueTaskQueue('restart');
      // Started while no worker runs: the workflow exists only in the server's database when the server stops.
      const handle = await env.client.workflow.start(smokeWorkflow, {
        taskQueue,
        workflowId: randomWorkflowId('restart'),
        args: ['Ada'],
        workflowExecutionTimeout: '60 seconds',
      });
      await first.stop();

      const second = await startDevServer({ ...options, port: first.port });
      servers.push(second);
      expect(second.address).toBe(first.address);
      expect((await handle.describe()).status.name).toBe('RUNNING');

      const worker = await Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace,
        taskQueue,
        workflowBundle: await bundleWorkflows(workflowsPath),
        activities: createActivities(),
      });
      await worker.runUntil(async () => {
        await handle.signal(approveSignal, 'Grace');
        expect(await handle.result()).toBe('Hello, Ada! (approved by Grace)');
        expect(await handle.query(statusQuery)).toBe('done');
      });
    } finally {
      await env.teardown();
    }
  });

  it('reports why a server could not start', async () => {
    const running = await startDevServer();
    servers.push(running);
    await expect(startDevServer({ port: running.port, startTimeoutMs: 10_000 })).rejects.toThrow(
      /exited with code 1[\s\S]*address already in use/,
    );
  });
});
