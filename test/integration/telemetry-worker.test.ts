// `worker.ts` as operators run it, configured only by environment variables: traces go to an OTLP endpoint (here a
// local HTTP receiver standing in for an OpenTelemetry Collector), the worker's Temporal metrics are served for
// Prometheus, and SIGTERM drains it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { createTestEnv, testServer, uniqueTaskQueue } from '../support/temporal.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface OtlpSpan {
  name: string;
  traceId: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

let env: TestWorkflowEnvironment;
let collector: Server;
const received: { service: string; spans: OtlpSpan[] }[] = [];
const contentTypes = new Set<string>();
beforeAll(async () => {
  env = await createTestEnv();
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      contentTypes.add(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans) {
        const service = resourceSpans.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        received.push({ service: service ?? '', spans: resourceSpans.scopeSpans.flatMap((s) => s.spans) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => collector?.close(resolve));
  await env?.teardown();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function startWorkerTs(extraEnv: Record<string, string>): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker.ts'], {
    cwd: ROOT,
    env: { ...process.env, OPENAI_API_KEY: '', AGENT_MODEL: '', DURABLE_AGENT_ENCRYPTION_KEY: '', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('worker polling task queue')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`worker.ts exited (${code}) before polling:\n${output}`)));
  });
  return { child, ready };
}

describe('worker.ts telemetry from the environment', () => {
  it('exports the run trace over OTLP, serves Prometheus metrics, and drains on SIGTERM', async () => {
    const taskQueue = uniqueTaskQueue('otel-worker');
    const metricsPort = await freePort();
    const { port: collectorPort } = collector.address() as AddressInfo;
    const { child, ready } = startWorkerTs({
      TEMPORAL_ADDRESS: testServer().address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'assistant-worker',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      DURABLE_AGENT_PROMETHEUS_BIND_ADDRESS: `127.0.0.1:${metricsPort}`,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await ready;
      const run = await new AgentClient({ client: env.client, taskQueue }).start(
        'assistant',
        'What is the weather in Paris?',
        { workflow: { workflowExecutionTimeout: '1 minute' } },
      );
      const result = await run.result();
      expect(result.toolResults.map((r) => r.toolName)).toEqual(['get_weather']);

      // Spans arrive at the collector, from the worker's service, all in the run's trace.
      const spanNames = () => received.flatMap((r) => r.spans.map((s) => s.name));
      await expect
        .poll(spanNames, { timeout: 20_000 })
        .toEqual(expect.arrayContaining(['RunWorkflow:agentRun', 'execute_tool get_weather', 'RunActivity:generate']));
      expect(new Set(received.map((r) => r.service))).toEqual(new Set(['assistant-worker']));
      const runSpans = received.flatMap((r) => r.spans);
      const workflowTrace = runSpans.find((s) => s.name === 'RunWorkflow:agentRun')!.traceId;
      const toolSpan = runSpans.find((s) => s.name === 'execute_tool get_weather')!;
      expect(toolSpan.traceId).toBe(workflowTrace);
      expect(toolSpan.attributes?.find((a) => a.key === 'durable_agent.tool.outcome')?.value).toEqual({
        stringValue: 'ok',
      });
      expect([...contentTypes]).toEqual(['POST /v1/traces application/json']);

      // The worker's Temporal metrics, scraped as Prometheus would.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const line = (name: string, label: string) =>
        metrics
          .split('\n')
          .find((l) => l.startsWith(name) && l.includes(label) && l.includes(`task_queue="${taskQueue}"`));
      expect(line('temporal_activity_execution_latency_count', 'activity_type="executeTool"')).toBeDefined();
      expect(line('temporal_workflow_completed', 'workflow_type="agentRun"')).toMatch(/ 1$/);
      expect(line('temporal_workflow_task_schedule_to_start_latency_count', '')).toBeDefined();

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
