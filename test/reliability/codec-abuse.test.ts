// The payload codec under abuse, on a real dev server: a decompression bomb sent as a signal, a plaintext approval
// sent to an encrypting worker, and an encrypted approval copied from one run's history into another run.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { createPayloadCodec, type DurableAgentPayloadCodec } from '../../src/codec/create-payload-codec.js';
import { workerPayloadCodec } from '../../src/codec/worker-payload-codec.js';
import { createConsoleLogger, setGlobalLogger } from '../../src/logger.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { approvalSignal } from '../../src/protocol/run-messages.js';
import { withAgentWorker } from '../support/agent-harness.js';
import type { History } from '../support/history.js';
import { bundleWorkflows, createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});
afterEach(() => setGlobalLogger(createConsoleLogger()));

const encrypting = (): DurableAgentPayloadCodec =>
  createPayloadCodec({ encryption: { keyId: 'abuse-test', key: randomBytes(32) } });

/** An agent whose one tool needs approval; `executed` records every execution. */
function guardedAgent(executed: string[]): Agent {
  const deleteFile = createTool({
    name: 'delete_file',
    description: 'Deletes a file.',
    parameters: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      executed.push(path);
      return `deleted ${path}`;
    },
  });
  // Stateless (the step is the number of assistant turns so far), so several runs can share the agent.
  const model = new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [
      { toolCalls: [{ toolName: 'delete_file', input: { path: '/important' }, toolCallId: 'c1' }] },
      { text: 'Done.' },
    ],
  });
  return new Agent({ name: 'guarded', instructions: '', model, tools: [deleteFile] });
}

function clientWith(codec: DurableAgentPayloadCodec | undefined, taskQueue: string): AgentClient {
  const temporal = new Client({
    connection: env.connection,
    namespace: env.namespace,
    ...(codec ? { dataConverter: { payloadCodecs: [codec] } } : {}),
  });
  return new AgentClient({ client: temporal, taskQueue });
}

async function waitingForApproval(run: AgentRun): Promise<void> {
  await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
}

/** Sends a signal with payloads exactly as given, as anyone with access to the namespace can. */
async function sendRawSignal(workflowId: string, payload: Payload): Promise<void> {
  await env.client.workflowService.signalWorkflowExecution({
    namespace: env.namespace,
    workflowExecution: { workflowId },
    signalName: approvalSignal.name,
    input: { payloads: [payload] },
    identity: 'codec-abuse-test',
  });
}

/** The message of the run's first failed workflow task, waiting for it to appear. */
async function workflowTaskFailure(run: AgentRun): Promise<string> {
  let message: string | undefined;
  await expect
    .poll(
      async () => {
        const history = await run.handle.fetchHistory();
        message = history.events?.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes
          ?.failure?.message as string | undefined;
        return message;
      },
      { timeout: 20_000 },
    )
    .toBeDefined();
  return message!;
}

const failedTasks = (history: History): number =>
  (history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes).length;

/** Samples the process's resident memory until stopped; returns the peak growth in bytes. */
function watchMemory(): () => number {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage().rss) - start;
  };
}

describe('codec abuse', () => {
  it('refuses a 2 MB signal that inflates to 1.9 GiB after 16 MiB, and the run goes on, also on replay', async () => {
    const warnings: string[] = [];
    setGlobalLogger({ ...createConsoleLogger('error'), warn: (message: string) => void warnings.push(message) });
    const codec = encrypting();
    const executed: string[] = [];
    const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
    const bomb: Payload = {
      metadata: { encoding: Buffer.from('binary/gzip') },
      // Just under the server's 2 MB payload limit: about 1.9 GiB of zeros once inflated.
      data: Buffer.concat(Array.from({ length: Math.floor(2_000_000 / member.length) }, () => member)),
    };

    await withAgentWorker(
      env,
      [guardedAgent(executed)],
      async ({ taskQueue }) => {
        const run = await clientWith(codec, taskQueue).start('guarded', 'Delete /important', {
          workflow: { workflowExecutionTimeout: '2 minutes' },
        });
        await waitingForApproval(run);

        const memoryGrowth = watchMemory();
        await sendRawSignal(run.id, bomb);
        await expect
          .poll(() => warnings.some((w) => w.includes(`workflow '${run.id}'`)), { timeout: 20_000 })
          .toBe(true);
        expect(memoryGrowth()).toBeLessThan(400 * 1024 * 1024);
        expect(executed).toEqual([]);

        // The bomb was ignored like any malformed signal; a real approval still settles the call.
        expect((await run.state()).pendingApprovals).toHaveLength(1);
        await run.approve('c1', { signal: true, approver: 'alice' });
        expect((await run.result()).text).toBe('Done.');
        expect(executed).toEqual(['/important']);

        const history = await run.handle.fetchHistory();
        expect(failedTasks(history)).toBe(0);
        // Replaying the history decodes the bomb again and takes the same path.
        await Worker.runReplayHistory(
          {
            workflowBundle: await bundleWorkflows(workflowsPath()),
            dataConverter: { payloadCodecs: [workerPayloadCodec([codec])] },
          },
          history,
          run.id,
        );
      },
      { payloadCodec: codec },
    );
  });

  it('refuses a plaintext approval sent to an encrypting worker, with a workflow task failure that says why', async () => {
    const codec = encrypting();
    const executed: string[] = [];
    await withAgentWorker(
      env,
      [guardedAgent(executed)],
      async ({ taskQueue }) => {
        const run = await clientWith(codec, taskQueue).start('guarded', 'Delete /important', {
          workflow: { workflowExecutionTimeout: '2 minutes' },
        });
        await waitingForApproval(run);
        // A client without the codec (or the temporal CLI) sends the decision in plaintext.
        await env.client.workflow
          .getHandle(run.id)
          .signal(approvalSignal, { toolCallId: 'c1', approved: true, approver: 'mallory' });
        const failure = await workflowTaskFailure(run);
        expect(failure).toContain(`Refused an unencrypted payload (encoding 'json/plain')`);
        expect(failure).toContain('DURABLE_AGENT_ALLOW_PLAINTEXT=true');
        expect(failure).toContain('reset or terminate its run instead');
        // Held, not applied: the run still records no decision and the tool never ran.
        const history = await run.handle.fetchHistory();
        expect((history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(1);
        expect(executed).toEqual([]);
        await run.handle.terminate('test done');
      },
      { payloadCodec: codec },
    );
  });

  it('refuses an encrypted approval copied from one run into another', async () => {
    const codec = encrypting();
    const executed: string[] = [];
    await withAgentWorker(
      env,
      [guardedAgent(executed)],
      async ({ taskQueue }) => {
        const client = clientWith(codec, taskQueue);
        const options = { workflow: { workflowExecutionTimeout: '2 minutes' } };
        const [first, second] = [
          await client.start('guarded', 'Delete /important', options),
          await client.start('guarded', 'Delete /important', options),
        ];
        await waitingForApproval(first);
        await waitingForApproval(second);
        await first.approve('c1', { signal: true, approver: 'alice' });
        await first.result();
        expect(executed).toEqual(['/important']);

        // The approval as the server stored it, replayed into the second run.
        const signaled = (await first.handle.fetchHistory()).events?.find(
          (e) => e.workflowExecutionSignaledEventAttributes,
        )?.workflowExecutionSignaledEventAttributes;
        const copied = signaled!.input!.payloads![0]! as Payload;
        expect(Buffer.from(copied.metadata!['encryption-workflow-id']!).toString()).toBe(first.id);
        await sendRawSignal(second.id, copied);
        const failure = await workflowTaskFailure(second);
        expect(failure).toContain(`bound to workflow '${first.id}' that was delivered to workflow '${second.id}'`);
        expect(executed).toEqual(['/important']);

        // Relabelled for the second run, it fails authentication instead.
        await second.handle.terminate('test done');
        const third = await client.start('guarded', 'Delete /important', options);
        await waitingForApproval(third);
        const relabelled: Payload = {
          metadata: { ...copied.metadata, 'encryption-workflow-id': Buffer.from(third.id) },
          data: copied.data!,
        };
        await sendRawSignal(third.id, relabelled);
        expect(await workflowTaskFailure(third)).toContain(`key id 'abuse-test' failed authentication`);
        expect(executed).toEqual(['/important']);
        await third.handle.terminate('test done');
      },
      { payloadCodec: codec },
    );
  });
});
