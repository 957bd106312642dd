// An agent run started as a child of a team's own workflow (with the workflow-safe `startAgentRun`): the parent
// gets its output, a person approves its tool call through the usual client, and cancelling the parent cancels the
// run, whose running tool sees its abort signal and finishes its cleanup first.
import { fileURLToPath } from 'node:url';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { DurableAgentPlugin } from '../../src/worker/plugin.js';
import { composeGreeting } from '../fixtures/plugin/activities.js';
import { createTestEnv, randomWorkflowId, uniqueTaskQueue } from '../support/temporal.js';

const TEAM_WORKFLOWS = fileURLToPath(new URL('../fixtures/plugin/workflows.ts', import.meta.url));

const log: string[] = [];

const findSights = createTool({
  name: 'find_sights',
  description: 'Lists sights in a city.',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    log.push(`find_sights ${city}`);
    return ['museum', 'park'];
  },
});
const bookTable = createTool({
  name: 'book_table',
  description: 'Books a restaurant table. Needs approval.',
  parameters: z.object({ at: z.string() }),
  needsApproval: true,
  execute: async ({ at }) => {
    log.push(`book_table ${at}`);
    return 'booked';
  },
});
const survey = createTool({
  name: 'survey',
  description: 'A long survey that stops when aborted.',
  parameters: z.object({}),
  activity: { heartbeatTimeout: '5s' },
  execute: async (_args, options) => {
    log.push('survey started');
    await new Promise<void>((resolve) => options?.abortSignal?.addEventListener('abort', () => resolve()));
    await new Promise((r) => setTimeout(r, 300));
    log.push('survey cleaned up');
    return 'interrupted';
  },
});

const agents = [
  new Agent({
    name: 'planner',
    instructions: 'Plan trips.',
    model: new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'find_sights', input: { city: 'Lyon' } }] }, { text: 'museum then park' }],
    }),
    tools: [findSights],
  }),
  new Agent({
    name: 'booker',
    instructions: 'Book tables.',
    model: new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'book_table', input: { at: '19:00' } }] }, { text: 'table at seven' }],
    }),
    tools: [bookTable],
  }),
  new Agent({
    name: 'surveyor',
    instructions: 'Survey.',
    model: new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'survey', input: {} }] }, { text: 'never reached' }],
    }),
    tools: [survey],
  }),
];

let env: TestWorkflowEnvironment;
let plugin: DurableAgentPlugin;
let bundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  env = await createTestEnv();
  plugin = new DurableAgentPlugin({
    agents,
    providers: new ProviderRegistry({ env: {} }),
    payloadCodec: false,
    telemetry: false,
  });
  bundle = await bundleWorkflowCode({
    workflowsPath: TEAM_WORKFLOWS,
    plugins: [plugin],
    logger: new DefaultLogger('WARN'),
  });
});
afterAll(async () => {
  await env?.teardown();
});

async function withTeamWorker(fn: (client: Client, agentClient: AgentClient, taskQueue: string) => Promise<void>) {
  const taskQueue = uniqueTaskQueue('child');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: { composeGreeting },
    plugins: [plugin],
  });
  const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default', plugins: [plugin] });
  await worker.runUntil(fn(client, new AgentClient({ client, taskQueue }), taskQueue));
}

describe('agent run as a child workflow', () => {
  it("returns the agent's output to the parent workflow", async () => {
    log.length = 0;
    await withTeamWorker(async (client, agentClient, taskQueue) => {
      const parentId = randomWorkflowId('trip');
      const result = await client.workflow.execute('planTrip', {
        taskQueue,
        workflowId: parentId,
        args: ['Lyon'],
        workflowExecutionTimeout: '1 minute',
      });
      expect(result).toMatchObject({ plan: 'MUSEUM THEN PARK', steps: 2 });
      expect(result.agentRunId).toMatch(new RegExp(`^${parentId}/agent-planner-[0-9a-f-]{36}$`));
      // The child is an ordinary run: its transcript and settings are readable through the agent client.
      const child = await agentClient.getRun(result.agentRunId).result();
      expect(child.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
      expect(log).toEqual(['find_sights Lyon']);
    });
  });

  it("waits for a person's approval on the child run, decided through the agent client", async () => {
    log.length = 0;
    await withTeamWorker(async (client, agentClient, taskQueue) => {
      const agentRunId = randomWorkflowId('booking');
      const parent = await client.workflow.start('planTrip', {
        taskQueue,
        workflowId: randomWorkflowId('trip'),
        args: ['Lyon', { agent: 'booker', agentRunId }],
        workflowExecutionTimeout: '1 minute',
      });
      const run = agentClient.getRun(agentRunId);
      await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 20_000 }).toBe(1);
      await run.approve((await run.state()).pendingApprovals[0]!.toolCallId, { approver: 'maitre-d' });
      expect(await parent.result()).toMatchObject({ plan: 'TABLE AT SEVEN', agentRunId });
      expect(log).toEqual(['book_table 19:00']);
    });
  });

  it('cancels the child run when the parent is cancelled; the running tool cleans up first', async () => {
    log.length = 0;
    await withTeamWorker(async (client, agentClient, taskQueue) => {
      const agentRunId = randomWorkflowId('survey');
      const parent = await client.workflow.start('planTrip', {
        taskQueue,
        workflowId: randomWorkflowId('trip'),
        args: ['Lyon', { agent: 'surveyor', agentRunId }],
        workflowExecutionTimeout: '1 minute',
      });
      await expect.poll(() => log.includes('survey started'), { timeout: 20_000 }).toBe(true);
      await parent.cancel();

      const failure = await parent.result().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect((await parent.describe()).status.name).toBe('CANCELLED');

      const child = client.workflow.getHandle(agentRunId);
      expect((await child.describe()).status.name).toBe('CANCELLED');
      // The parent saw the child's cancellation only after the tool's cleanup had finished.
      expect(log).toEqual(['survey started', 'survey cleaned up']);
      const history = await parent.fetchHistory();
      const childCancelled = history.events?.find((e) => e.childWorkflowExecutionCanceledEventAttributes);
      expect(childCancelled).toBeDefined();
      expect((await agentClient.getRun(agentRunId).state()).status).toBe('cancelled');
    });
  });
});
