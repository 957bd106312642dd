// Runs agents on a real worker against the suite's Temporal dev server: one bundle per test file, a fresh task
// queue per test, and every run started with an execution timeout so a regression fails instead of hanging.
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { AgentClient, type StartRunOptions } from '../../src/client/agent-client.js';
import type { Agent } from '../../src/agent/agent.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import type { ScriptedRequest } from '../../src/models/scripted-model.js';
import { createAgentWorker, workflowsPath, type AgentWorkerOptions } from '../../src/worker/create-agent-worker.js';
import { scheduledActivities, type History } from './history.js';
import { currentVersion, HISTORIES_DIR, sha256 } from './release-fixtures.js';
import { bundleWorkflows, uniqueTaskQueue } from './temporal.js';

/** Options of {@link withAgentWorker}. */
export interface HarnessOptions extends Partial<Omit<AgentWorkerOptions, 'agents' | 'connection'>> {
  taskQueue?: string;
}

/** A client bound to the harness's task queue, whose runs get an execution timeout by default. */
export interface HarnessClient {
  client: AgentClient;
  taskQueue: string;
  start: (
    agentName: string,
    input: Parameters<AgentClient['start']>[1],
    options?: StartRunOptions,
  ) => ReturnType<AgentClient['start']>;
}

/** Runs `fn` while a worker hosting `agents` polls a fresh task queue. */
export async function withAgentWorker<T>(
  env: TestWorkflowEnvironment,
  agents: Agent[],
  fn: (h: HarnessClient) => Promise<T>,
  options: HarnessOptions = {},
): Promise<T> {
  const taskQueue = options.taskQueue ?? uniqueTaskQueue();
  const worker = await createAgentWorker({
    providers: new ProviderRegistry({ env: {} }),
    ...options,
    agents,
    taskQueue,
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    workflowBundle: await bundleWorkflows(workflowsPath()),
  });
  const client = new AgentClient({ client: env.client, taskQueue });
  const harness: HarnessClient = {
    client,
    taskQueue,
    start: (agentName, input, startOptions = {}) =>
      client.start(agentName, input, {
        ...startOptions,
        workflow: { workflowExecutionTimeout: '2 minutes', ...startOptions.workflow },
      }),
  };
  return await worker.runUntil(fn(harness));
}

/** How many activities of each type a history scheduled, local activities (recorded as markers) included. */
export function activityCounts(history: History): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of scheduledActivities(history)) counts[type] = (counts[type] ?? 0) + 1;
  for (const event of history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') continue;
    const data = marker.details?.data?.payloads?.[0]?.data;
    const type = data
      ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type
      : undefined;
    if (type) counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}

/**
 * Saves a run's history as a replay fixture of the current package version when `RECORD_HISTORIES=1`, and adds it
 * to that version's manifest. Committed fixtures are replayed by `test/integration/replay.test.ts` against the
 * current workflow code. An existing fixture is never overwritten: runs recorded by a released workflow must keep
 * replaying, so a change that breaks one needs `patched()` (docs/upgrading.md), not a new recording.
 */
export async function recordHistory(
  name: string,
  env: TestWorkflowEnvironment,
  workflowId: string,
  runId?: string,
): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const dir = `${HISTORIES_DIR}${currentVersion()}/`;
  const file = `${name}.json`;
  if (existsSync(`${dir}${file}`)) return;
  const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const json = historyToJSON(history);
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${file}`, json);
  appendFileSync(`${dir}SHA256SUMS`, `${sha256(json)}  ${file}\n`);
}

/** The tool results a scripted model received in one request, by tool-call id, in prompt order. */
export function toolResultsSeen(request: ScriptedRequest | undefined): Map<string, unknown> {
  const seen = new Map<string, unknown>();
  for (const message of request?.prompt ?? []) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') seen.set(part.toolCallId, part.output);
  }
  return seen;
}
