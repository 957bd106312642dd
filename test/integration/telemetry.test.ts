// Tracing with an in-memory exporter: one trace per run, from the client's start through the workflow, with a span
// for every model call (model id, token usage) and every tool call (tool name, outcome, attempt). Prompts and tool
// arguments stay out of spans unless content recording is asked for.
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { AgentTelemetry } from '../../src/telemetry/agent-telemetry.js';
import { createTool } from '../../src/tool/tool.js';
import { DurableAgentPlugin } from '../../src/worker/plugin.js';
import { workflowsPath } from '../../src/worker/workflow-paths.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const SECRET_PROMPT = 'my account number is 12345678';

const exporter = new InMemorySpanExporter();
const telemetry = AgentTelemetry.install({ spanProcessor: new SimpleSpanProcessor(exporter), serviceName: 'trip-svc' });

const lookup = createTool({
  name: 'lookup',
  description: 'Looks something up.',
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => `found ${q}`,
});
const broken = createTool({
  name: 'broken',
  description: 'Always fails.',
  parameters: z.object({}),
  execute: async () => {
    throw new Error('out of order');
  },
});
const agent = new Agent({
  name: 'traced',
  instructions: 'Answer.',
  model: new ScriptedLanguageModel({
    modelId: 'scripted-traced-1',
    stepSelection: 'assistant-turns',
    steps: [
      {
        toolCalls: [
          { toolName: 'lookup', input: { q: 'secret-argument' }, toolCallId: 'a' },
          { toolName: 'broken', input: {}, toolCallId: 'b' },
        ],
        usage: { inputTokens: 40, outputTokens: 7 },
      },
      { text: 'done', usage: { inputTokens: 60, outputTokens: 3 } },
    ],
  }),
  tools: [lookup, broken],
});

const counter = new Agent({
  name: 'counter',
  instructions: 'Count.',
  model: new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [
      ...[1, 2, 3, 4].map((n) => ({ toolCalls: [{ toolName: 'lookup', input: { q: `n${n}` }, toolCallId: `c${n}` }] })),
      { text: 'counted' },
    ],
  }),
  tools: [lookup],
});

let env: TestWorkflowEnvironment;
let plugin: DurableAgentPlugin;
let workflowBundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  env = await createTestEnv();
  plugin = new DurableAgentPlugin({
    agents: [agent, counter],
    providers: new ProviderRegistry({ env: {} }),
    telemetry,
  });
  // Bundled with the plugin, so the bundle carries Temporal's workflow tracing interceptors.
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    plugins: [plugin],
    logger: new DefaultLogger('WARN'),
  });
});
afterAll(async () => {
  await env?.teardown();
});

/** Runs `fn` with a traced worker on a fresh task queue and a traced agent client for it. */
async function withTracedWorker<T>(fn: (agents: AgentClient) => Promise<T>): Promise<T> {
  const taskQueue = uniqueTaskQueue('traced');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle,
    plugins: [plugin],
  });
  const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default', plugins: [plugin] });
  return await worker.runUntil(fn(new AgentClient({ client, taskQueue })));
}

const attr = (span: ReadableSpan, key: string) => span.attributes[key];

describe('tracing', () => {
  it('records one trace per run from the client start through the workflow, model calls and tool calls', async () => {
    exporter.reset();
    const runId = await withTracedWorker(async (agents) => {
      const run = await agents.start('traced', SECRET_PROMPT, { workflow: { workflowExecutionTimeout: '1 minute' } });
      expect((await run.result()).text).toBe('done');
      return run.id;
    });
    await telemetry.forceFlush();
    const spans = exporter.getFinishedSpans();

    const start = spans.find((s) => s.name === 'StartWorkflow:agentRun');
    expect(start).toBeDefined();
    const traceId = start!.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const names = inTrace.map((s) => s.name);
    expect(names).toContain('RunWorkflow:agentRun');
    expect(names.filter((n) => n === 'RunActivity:generate')).toHaveLength(2);
    expect(names.filter((n) => n === 'RunActivity:executeTool')).toHaveLength(2);
    // Nothing of the run's work landed in another trace.
    const elsewhere = spans.filter((s) => s.spanContext().traceId !== traceId);
    expect(elsewhere.map((s) => s.name).filter((n) => /Activity|execute_tool|RunWorkflow|agentRun/.test(n))).toEqual(
      [],
    );
    expect(start!.resource.attributes['service.name']).toBe('trip-svc');

    // Model calls: the AI SDK's spans, under the generate activity, with model id and token usage.
    const modelSpans = inTrace.filter((s) => attr(s, 'gen_ai.request.model') === 'scripted-traced-1');
    expect(modelSpans.length).toBeGreaterThanOrEqual(2);
    const inputTokens = modelSpans.map((s) => attr(s, 'gen_ai.usage.input_tokens')).filter((v) => v !== undefined);
    expect(inputTokens).toEqual(expect.arrayContaining([40, 60]));
    const generateSpans = inTrace.filter((s) => s.name === 'RunActivity:generate');
    expect(generateSpans.map((s) => [attr(s, 'durable_agent.step'), attr(s, 'gen_ai.usage.output_tokens')])).toEqual(
      expect.arrayContaining([
        [1, 7],
        [2, 3],
      ]),
    );
    const generateIds = new Set(generateSpans.map((s) => s.spanContext().spanId));
    expect(modelSpans.some((s) => generateIds.has(ancestorIn(s, inTrace, generateIds) ?? ''))).toBe(true);

    // Tool calls: one span each, with name, call id, outcome and attempt, under the executeTool activity span.
    const toolSpans = inTrace.filter((s) => s.name.startsWith('execute_tool '));
    expect(
      toolSpans
        .map((s) => [
          s.name,
          attr(s, 'gen_ai.tool.call.id'),
          attr(s, 'durable_agent.tool.outcome'),
          attr(s, 'durable_agent.attempt'),
        ])
        .sort(),
    ).toEqual([
      ['execute_tool broken', 'b', 'error', 1],
      ['execute_tool lookup', 'a', 'ok', 1],
    ]);
    expect(toolSpans.find((s) => s.name === 'execute_tool broken')!.status.code).toBe(2);
    const activityIds = new Set(
      inTrace.filter((s) => s.name === 'RunActivity:executeTool').map((s) => s.spanContext().spanId),
    );
    for (const span of toolSpans) expect(activityIds.has(span.parentSpanId ?? '')).toBe(true);
    expect(toolSpans.every((s) => attr(s, 'durable_agent.workflow_id') === runId)).toBe(true);

    // Content stays out of spans by default.
    const everything = JSON.stringify(spans.map((s) => s.attributes));
    expect(everything).not.toContain('12345678');
    expect(everything).not.toContain('secret-argument');
  });
});

describe('tracing across continue-as-new', () => {
  it('keeps every execution of a run in the trace its client started', async () => {
    exporter.reset();
    await withTracedWorker(async (agents) => {
      // A tiny history budget: the run continues as new after almost every step.
      const run = await agents.start('counter', 'count', {
        historyEventBudget: 20,
        workflow: { workflowExecutionTimeout: '1 minute' },
      });
      expect((await run.result()).text).toBe('counted');
    });
    await telemetry.forceFlush();
    const spans = exporter.getFinishedSpans();
    const traceId = spans.find((s) => s.name === 'StartWorkflow:agentRun')!.spanContext().traceId;
    const executions = spans.filter((s) => s.name === 'RunWorkflow:agentRun');
    expect(new Set(executions.map((s) => attr(s, 'runId'))).size).toBeGreaterThanOrEqual(3);
    expect(executions.every((s) => s.spanContext().traceId === traceId)).toBe(true);
    const tools = spans.filter((s) => s.name === 'execute_tool lookup');
    expect(tools.map((s) => attr(s, 'gen_ai.tool.call.id')).sort()).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(tools.every((s) => s.spanContext().traceId === traceId)).toBe(true);
  });
});

/** The nearest ancestor of `span` (within `spans`) that is in `targets`. */
function ancestorIn(span: ReadableSpan, spans: ReadableSpan[], targets: Set<string>): string | undefined {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  let parent = span.parentSpanId;
  while (parent) {
    if (targets.has(parent)) return parent;
    parent = byId.get(parent)?.parentSpanId;
  }
  return undefined;
}
