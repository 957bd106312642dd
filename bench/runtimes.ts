// The runtimes under test behind one interface: run one workload and return its wall time (start to result), read
// a finished run's transcript, and start runs that wait for approval and approve them. Each checks its runs really
// did the scripted steps, so a broken runtime fails the bench instead of looking fast.
import { randomUUID } from 'node:crypto';
import { type Client, type WorkflowHandle } from '@temporalio/client';
import { AgentClient } from '../src/client/agent-client.js';
import type { AgentRunOutput } from '../src/protocol/index.js';
import type { ChildWorker } from './child-worker.js';
import {
  FINAL_TEXT,
  SYSTEM_PROMPT,
  TOOL_DESCRIPTION,
  USER_PROMPT,
  agentName,
  modelSteps,
  runInProcess,
  scriptedModelId,
  type WorkloadSpec,
} from './workload.js';

/** Every runtime the bench knows, in the order tables show them. */
export const RUNTIME_KEYS = [
  'inProcess',
  'floor',
  'durableAgent',
  'temporalAiSdk',
  'floorLocal',
  'durableAgentLocal',
] as const;
export type RuntimeKey = (typeof RUNTIME_KEYS)[number];

export const RUNTIME_LABELS: Record<RuntimeKey, string> = {
  inProcess: 'in-process AI SDK',
  floor: 'floor (bare Temporal)',
  durableAgent: 'durable-agent',
  temporalAiSdk: '@temporalio/ai-sdk',
  floorLocal: 'floor, local tool',
  durableAgentLocal: 'durable-agent, local tool',
};

/** One finished run. */
export interface RunTiming {
  ms: number;
  /** The workflow id, for durable runs. */
  workflowId?: string;
}

/** A runtime the bench can drive. */
export interface BenchRuntime {
  readonly key: RuntimeKey;
  readonly label: string;
  /** The worker process whose CPU time and memory the bench reads (durable runtimes). */
  readonly worker?: ChildWorker;
  run(spec: WorkloadSpec): Promise<RunTiming>;
  /** The finished run's transcript (durable runtimes only). */
  transcript?(workflowId: string): Promise<unknown[]>;
  /** Runs that wait for a person's approval before their tool call (durable runtimes only). */
  waiting?: WaitingRuns;
}

/**
 * Runs of one tool step that wait for approval before the tool runs: `start` resolves once the run is started,
 * `prepare` reads what a person needs to decide (durable-agent: the request's token, as a UI would show it),
 * `approve` sends the decision and resolves once the run accepted it, `finish` waits for the result and checks it.
 */
export interface WaitingRuns {
  start(workflowId: string): Promise<void>;
  prepare(workflowId: string): Promise<void>;
  approve(workflowId: string): Promise<void>;
  finish(workflowId: string): Promise<void>;
}

/** The workload of waiting runs: one tool step that needs approval, then the final text. */
export const WAITING_SPEC: WorkloadSpec = { toolSteps: 1, bytes: 64, approval: true };

/** Every durable run gets a deadline, so a regression fails the bench instead of hanging it. */
const RUN_TIMEOUT = '3 minutes';
/** Waiting runs wait as long as the bench needs them to. */
const WAITING_RUN_TIMEOUT = '2 hours';

function check(label: string, spec: WorkloadSpec, text: string, steps: number): void {
  if (text !== FINAL_TEXT || steps !== modelSteps(spec)) {
    throw new Error(
      `${label}: expected ${modelSteps(spec)} steps ending in "${FINAL_TEXT}", got ${steps} steps ending in "${text}".`,
    );
  }
}

/** `generateText` in this process: the baseline with no durability at all. */
export function inProcessRuntime(): BenchRuntime {
  const label = RUNTIME_LABELS.inProcess;
  return {
    key: 'inProcess',
    label,
    run: async (spec) => {
      const startedAt = performance.now();
      const result = await runInProcess(spec);
      const ms = performance.now() - startedAt;
      check(label, spec, result.text, result.steps);
      return { ms };
    },
  };
}

/** durable-agent: `AgentClient.start` then the workflow's result (the transcript is read only when asked for). */
export function durableAgentRuntime(
  temporal: Client,
  taskQueue: string,
  worker: ChildWorker,
  options: { localTool?: boolean } = {},
): BenchRuntime {
  const key = options.localTool ? 'durableAgentLocal' : 'durableAgent';
  const label = RUNTIME_LABELS[key];
  const client = new AgentClient({ client: temporal, taskQueue, requestTimeoutMs: 120_000 });
  const tokens = new Map<string, string>();
  const toolCallId = 'call_0_0';
  return {
    key,
    label,
    worker,
    run: async (spec) => {
      const startedAt = performance.now();
      const run = await client.start(agentName({ ...spec, localTool: options.localTool === true }), USER_PROMPT, {
        workflowId: `bench-da-${randomUUID()}`,
        workflow: { workflowExecutionTimeout: RUN_TIMEOUT },
      });
      const output = (await run.handle.result()) as AgentRunOutput;
      const ms = performance.now() - startedAt;
      check(label, spec, output.text, output.steps.length);
      return { ms, workflowId: run.id };
    },
    transcript: async (workflowId) => await client.getRun(workflowId).messages(),
    waiting: {
      start: async (workflowId) => {
        await client.start(agentName(WAITING_SPEC), USER_PROMPT, {
          workflowId,
          workflow: { workflowExecutionTimeout: WAITING_RUN_TIMEOUT },
        });
      },
      prepare: async (workflowId) => {
        const state = await client.getRun(workflowId).state();
        const token = state.pendingApprovals.find((p) => p.toolCallId === toolCallId)?.token;
        if (!token) throw new Error(`${label}: run ${workflowId} is not waiting for approval of ${toolCallId}.`);
        tokens.set(workflowId, token);
      },
      approve: async (workflowId) => {
        const token = tokens.get(workflowId);
        await client.getRun(workflowId).approve(toolCallId, token ? { token } : {});
      },
      finish: async (workflowId) => {
        const output = await client.getRun(workflowId).handle.result();
        check(label, WAITING_SPEC, (output as AgentRunOutput).text, (output as AgentRunOutput).steps.length);
      },
    },
  };
}

/** The floor: `floorRun` of bench/floor/workflows.ts, the same activities with no-op bodies and nothing else. */
export function floorRuntime(
  temporal: Client,
  taskQueue: string,
  worker: ChildWorker,
  options: { localTool?: boolean } = {},
): BenchRuntime {
  const key = options.localTool ? 'floorLocal' : 'floor';
  const label = RUNTIME_LABELS[key];
  const start = (spec: WorkloadSpec, workflowId: string, timeout: string) =>
    temporal.workflow.start('floorRun', {
      taskQueue,
      workflowId,
      workflowExecutionTimeout: timeout,
      args: [{ ...spec, localTool: options.localTool === true }],
    });
  const finish = async (handle: WorkflowHandle, spec: WorkloadSpec) => {
    const output = (await handle.result()) as { text: string; steps: number };
    check(label, spec, output.text, output.steps);
  };
  return {
    key,
    label,
    worker,
    run: async (spec) => {
      const startedAt = performance.now();
      const handle = await start(spec, `bench-floor-${randomUUID()}`, RUN_TIMEOUT);
      await finish(handle, spec);
      return { ms: performance.now() - startedAt, workflowId: handle.workflowId };
    },
    waiting: {
      start: async (workflowId) => {
        await start(WAITING_SPEC, workflowId, WAITING_RUN_TIMEOUT);
      },
      prepare: async () => undefined,
      approve: async (workflowId) => {
        await temporal.workflow.getHandle(workflowId).executeUpdate('floor.approve');
      },
      finish: async (workflowId) => await finish(temporal.workflow.getHandle(workflowId), WAITING_SPEC),
    },
  };
}

/** Temporal's @temporalio/ai-sdk: the `aiSdkAgent` workflow of ./temporal-ai-sdk/workflows.mjs. */
export function temporalAiSdkRuntime(temporal: Client, taskQueue: string, worker: ChildWorker): BenchRuntime {
  const label = RUNTIME_LABELS.temporalAiSdk;
  const start = (spec: WorkloadSpec, workflowId: string, timeout: string) =>
    temporal.workflow.start('aiSdkAgent', {
      taskQueue,
      workflowId,
      workflowExecutionTimeout: timeout,
      args: [
        {
          modelId: scriptedModelId(spec),
          system: SYSTEM_PROMPT,
          prompt: USER_PROMPT,
          maxSteps: modelSteps(spec),
          toolDescription: TOOL_DESCRIPTION,
          approval: spec.approval === true,
        },
      ],
    });
  const finish = async (handle: WorkflowHandle, spec: WorkloadSpec) => {
    const output = (await handle.result()) as { text: string; steps: number };
    check(label, spec, output.text, output.steps);
  };
  return {
    key: 'temporalAiSdk',
    label,
    worker,
    run: async (spec) => {
      const startedAt = performance.now();
      const handle = await start(spec, `bench-tai-${randomUUID()}`, RUN_TIMEOUT);
      await finish(handle, spec);
      return { ms: performance.now() - startedAt, workflowId: handle.workflowId };
    },
    transcript: async (workflowId) => await temporal.workflow.getHandle(workflowId).query<unknown[]>('transcript'),
    waiting: {
      start: async (workflowId) => {
        await start(WAITING_SPEC, workflowId, WAITING_RUN_TIMEOUT);
      },
      prepare: async () => undefined,
      approve: async (workflowId) => {
        await temporal.workflow.getHandle(workflowId).executeUpdate('approve');
      },
      finish: async (workflowId) => await finish(temporal.workflow.getHandle(workflowId), WAITING_SPEC),
    },
  };
}
