// The agent plugin on a worker and a client a team already has: agents run beside the team's own workflows on
// the team's task queue, with the payload codec on both sides, and clashes are refused with a clear error.
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ENCODING_ENCRYPTED } from '../../src/codec/constants.js';
import { createPayloadCodec } from '../../src/codec/create-payload-codec.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { AgentPluginError } from '../../src/worker/errors/agent-plugin-error.js';
import { DurableAgentPlugin } from '../../src/worker/plugin.js';
import { McpRuntime } from '../../src/runtime/mcp-runtime.js';
import { workflowsPath } from '../../src/worker/workflow-paths.js';
import { stdioFixture } from '../fixtures/mcp/servers.js';
import { composeGreeting } from '../fixtures/plugin/activities.js';
import { bundleWorkflows, createTestEnv, randomWorkflowId, testServer, uniqueTaskQueue } from '../support/temporal.js';

const TEAM_WORKFLOWS = fileURLToPath(new URL('../fixtures/plugin/workflows.ts', import.meta.url));

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

function plannerAgent(executions: string[]): Agent {
  const findSights = createTool({
    name: 'find_sights',
    description: 'Lists sights in a city.',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      executions.push(city);
      return ['museum', 'park'];
    },
  });
  const model = new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [{ toolCalls: [{ toolName: 'find_sights', input: { city: 'Lyon' } }] }, { text: 'museum then park' }],
  });
  return new Agent({ name: 'planner', instructions: 'Plan trips.', model, tools: [findSights] });
}

function plugin(executions: string[], options: { payloadCodec?: ReturnType<typeof createPayloadCodec> } = {}) {
  return new DurableAgentPlugin({
    agents: [plannerAgent(executions)],
    providers: new ProviderRegistry({ env: {} }),
    payloadCodec: options.payloadCodec ?? false,
    telemetry: false,
  });
}

describe('DurableAgentPlugin', () => {
  it("hosts an agent beside the team's own workflow and activity on the team's task queue", async () => {
    const executions: string[] = [];
    const agents = plugin(executions);
    const taskQueue = uniqueTaskQueue('team');
    // The team's worker as they already build it, bundling its own workflows module, plus the plugin.
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowsPath: TEAM_WORKFLOWS,
      activities: { composeGreeting },
      plugins: [agents],
    });
    const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default', plugins: [agents] });
    const agentClient = new AgentClient({ client, taskQueue });

    const greetId = randomWorkflowId('greet');
    const runId = await worker.runUntil(async () => {
      const greeting = client.workflow.execute('greet', {
        taskQueue,
        workflowId: greetId,
        args: ['Ada'],
        workflowExecutionTimeout: '1 minute',
      });
      const run = await agentClient.start('planner', 'Plan Lyon', {
        workflow: { workflowExecutionTimeout: '1 minute' },
      });
      const [greeted, result] = await Promise.all([greeting, run.result()]);
      expect(greeted).toBe('Hello, Ada!');
      expect(result.text).toBe('museum then park');
      expect(result.toolResults.map((r) => r.output)).toEqual([{ type: 'json', value: ['museum', 'park'] }]);
      return run.id;
    });
    expect(executions).toEqual(['Lyon']);
    // A replay worker given the plugin replays both kinds of history with the same joined workflows.
    for (const workflowId of [greetId, runId]) {
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      await Worker.runReplayHistory({ workflowsPath: TEAM_WORKFLOWS, plugins: [agents] }, history, workflowId);
    }
    // The defaults agents rely on, applied because the team's options left them unset.
    expect(worker.options.shutdownGraceTime).toBe('30s');
    expect(worker.options.maxHeartbeatThrottleInterval).toBe('200ms');
  });

  it('adds its payload codec to the worker and the client: payloads of every workflow are encrypted in history', async () => {
    const executions: string[] = [];
    const codec = createPayloadCodec({
      compression: 'none',
      encryption: { keys: { k1: Buffer.alloc(32, 7) }, currentKeyId: 'k1' },
    });
    const agents = plugin(executions, { payloadCodec: codec });
    const taskQueue = uniqueTaskQueue('team-codec');
    // A prebuilt bundle, built with the plugin so that it holds agentRun too.
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: TEAM_WORKFLOWS,
      plugins: [agents],
      logger: new DefaultLogger('WARN'),
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle,
      activities: { composeGreeting },
      plugins: [agents],
      // The team's own setting wins over the plugin's default.
      shutdownGraceTime: '5s',
    });
    const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default', plugins: [agents] });
    const agentClient = new AgentClient({ client, taskQueue });

    await worker.runUntil(async () => {
      const greetId = randomWorkflowId('greet');
      await expect(client.workflow.execute('greet', { taskQueue, workflowId: greetId, args: ['Grace'] })).resolves.toBe(
        'Hello, Grace!',
      );
      const run = await agentClient.start('planner', 'Plan Lyon');
      expect((await run.result()).text).toBe('museum then park');

      for (const workflowId of [greetId, run.id]) {
        const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
        const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
        const encoding = started?.input?.payloads?.[0]?.metadata?.encoding;
        expect(Buffer.from(encoding ?? []).toString()).toBe(ENCODING_ENCRYPTED);
      }
    });
    expect(worker.options.shutdownGraceTime).toBe('5s');
  });

  it('may be given to the connection and the worker both', async () => {
    const executions: string[] = [];
    const agents = plugin(executions);
    const taskQueue = uniqueTaskQueue('twice');
    const connection = await NativeConnection.connect({ address: testServer().address, plugins: [agents] });
    try {
      const worker = await Worker.create({
        connection,
        namespace: env.namespace ?? 'default',
        taskQueue,
        workflowBundle: await bundleWorkflowCode({
          workflowsPath: TEAM_WORKFLOWS,
          plugins: [agents],
          logger: new DefaultLogger('WARN'),
        }),
        activities: { composeGreeting },
        plugins: [agents],
      });
      const client = new AgentClient({ client: env.client, taskQueue });
      const text = await worker.runUntil(
        async () => (await (await client.start('planner', 'Plan Lyon')).result()).text,
      );
      expect(text).toBe('museum then park');
      expect(executions).toEqual(['Lyon']);
    } finally {
      await connection.close();
    }
  });

  it("refuses a worker whose own activities take the agent activities' names", async () => {
    const agents = plugin([]);
    const error = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue: uniqueTaskQueue('clash'),
      activities: { generate: async () => 'mine', composeGreeting },
      plugins: [agents],
    }).catch((e: unknown) => e);
    expect(AgentPluginError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("activities named 'generate'");
    expect((error as Error).message).toContain('rename your activities');
  });
});

describe("a plugin's runtime: options and MCP connections", () => {
  function echoAgent(): { agent: Agent; mcp: MCPConfiguration } {
    const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'local_echo', input: { text: 'hi' } }] }, { text: 'done' }],
    });
    return { agent: new Agent({ name: 'echoer', instructions: 'Echo.', model, mcp }), mcp };
  }

  async function runOnce(agents: DurableAgentPlugin, agentName: string, input: string) {
    const taskQueue = uniqueTaskQueue('runtime');
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: await bundleWorkflows(workflowsPath()),
      plugins: [agents],
    });
    const client = new AgentClient({ client: env.client, taskQueue });
    return await worker.runUntil(async () => {
      const result = await (await client.start(agentName, input)).result();
      // While the worker runs, its MCP connections stay open.
      expect(agents.mcp.pool.closed).toBe(false);
      return result;
    });
  }

  it('closes its own MCP connections when the worker it runs in stops, and leaves a runtime it was given open', async () => {
    const { agent, mcp } = echoAgent();
    const own = new DurableAgentPlugin({
      agents: [agent],
      providers: new ProviderRegistry({ env: {} }),
      payloadCodec: false,
      telemetry: false,
    });
    expect((await runOnce(own, 'echoer', 'go')).text).toBe('done');
    expect(own.mcp.pool.closed).toBe(true);

    const given = new McpRuntime();
    const sharing = new DurableAgentPlugin({
      agents: [echoAgent().agent],
      providers: new ProviderRegistry({ env: {} }),
      mcp: given,
      payloadCodec: false,
      telemetry: false,
    });
    expect(sharing.mcp).toBe(given);
    expect((await runOnce(sharing, 'echoer', 'go')).text).toBe('done');
    expect(given.pool.closed).toBe(false);
    await given.close();
    await mcp.disconnect();
  });

  it('hands its runtime options to the activities', async () => {
    const agents = new DurableAgentPlugin({
      agents: [plannerAgent([])],
      providers: new ProviderRegistry({ env: {} }),
      limits: { toolOutputBytes: 40 },
      payloadCodec: false,
      telemetry: false,
    });
    const result = await runOnce(agents, 'planner', 'Plan Lyon');
    expect(JSON.stringify(result.toolResults[0]?.output)).toMatch(/over the 40-byte limit for a recorded tool result/);
  });
});
