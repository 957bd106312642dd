// The Temporal server restarted with its database kept, while an agent run waits for a person and its worker stays
// up: the worker reconnects, the wait is still there, and the approval later completes the run exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { type DevServer, startDevServer } from '../../src/worker/dev-server.js';
import { createTestEnv } from '../support/temporal.js';
import { recordHistory, withAgentWorker } from '../support/agent-harness.js';

describe('server restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'durable-agent-restart-'));
  const servers: DevServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a run waiting for approval across a server restart with the same database', async () => {
    const options = { dbFilename: join(dataDir, 'temporal.sqlite') };
    const first = await startDevServer(options);
    servers.push(first);
    const env = await createTestEnv(first);
    const executed: string[] = [];
    const deploy = createTool({
      name: 'deploy',
      description: 'Deploys to production.',
      parameters: z.object({ version: z.string() }),
      needsApproval: true,
      execute: async ({ version }) => {
        executed.push(version);
        return `deployed ${version}`;
      },
    });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'deploy', input: { version: 'v2' }, toolCallId: 'd' }] }, { text: 'shipped' }],
    });
    const agent = new Agent({ name: 'shipper', instructions: '', model, tools: [deploy] });
    try {
      await withAgentWorker(env, [agent], async ({ start }) => {
        const run = await start('shipper', 'ship v2');
        await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 15_000 }).toBe(1);

        await first.stop();
        const second = await startDevServer({ ...options, port: first.port });
        servers.push(second);

        // The same worker, client and run, on the restarted server.
        await expect
          .poll(async () => (await run.state().catch(() => undefined))?.pendingApprovals.length, {
            timeout: 30_000,
            interval: 250,
          })
          .toBe(1);
        expect(executed).toEqual([]);
        await run.approve('d', { approver: 'release-manager' });
        const result = await run.result();
        expect(result.text).toBe('shipped');
        expect(executed).toEqual(['v2']);
        expect(result.approvals).toMatchObject([{ toolCallId: 'd', approved: true, approver: 'release-manager' }]);
        await recordHistory('server-restart', env, run.id);
      });
    } finally {
      await env.teardown();
    }
  });
});
