// The three runtimes under test behind one interface: run one workload, return its wall time (start to result),
// and read the run's transcript afterwards. Each checks its run really did the scripted steps, so a broken runtime
// fails the bench instead of looking fast.
import { randomUUID } from 'node:crypto';
import { type Client } from '@temporalio/client';
import { AgentClient } from '../src/client/agent-client.js';
import type { AgentRunOutput } from '../src/protocol/index.js';
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

/** One finished run. */
export interface RunTiming {
  ms: number;
  /** The workflow id, for durable runs. */
  workflowId?: string;
}

/** A runtime the bench can drive. */
export interface BenchRuntime {
  readonly key: 'inProcess' | 'durableAgent' | 'temporalAiSdk';
  readonly label: string;
  run(spec: WorkloadSpec): Promise<RunTiming>;
  /** The finished run's transcript (durable runtimes only). */
  transcript?(workflowId: string): Promise<unknown[]>;
}

/** Every durable run gets a deadline, so a regression fails the bench instead of hanging it. */
const RUN_TIMEOUT = '3 minutes';

function check(label: string, spec: WorkloadSpec, text: string, steps: number): void {
  if (text !== FINAL_TEXT || steps !== modelSteps(spec)) {
    throw new Error(
      `${label}: expected ${modelSteps(spec)} steps ending in "${FINAL_TEXT}", got ${steps} steps ending in "${text}".`,
    );
  }
}

/** `generateText` in this process: the baseline with no durability at all. */
export function inProcessRuntime(): BenchRuntime {
  const label = 'in-process AI SDK';
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
export function durableAgentRuntime(temporal: Client, taskQueue: string): BenchRuntime {
  const label = 'durable-agent';
  const client = new AgentClient({ client: temporal, taskQueue });
  return {
    key: 'durableAgent',
    label,
    run: async (spec) => {
      const startedAt = performance.now();
      const run = await client.start(agentName(spec), USER_PROMPT, {
        workflowId: `bench-da-${randomUUID()}`,
        workflow: { workflowExecutionTimeout: RUN_TIMEOUT },
      });
      const output = (await run.handle.result()) as AgentRunOutput;
      const ms = performance.now() - startedAt;
      check(label, spec, output.text, output.steps.length);
      return { ms, workflowId: run.id };
    },
    transcript: async (workflowId) => await client.getRun(workflowId).messages(),
  };
}

/** Temporal's @temporalio/ai-sdk: the `aiSdkAgent` workflow of ./temporal-ai-sdk/workflows.mjs. */
export function temporalAiSdkRuntime(temporal: Client, taskQueue: string): BenchRuntime {
  const label = '@temporalio/ai-sdk';
  return {
    key: 'temporalAiSdk',
    label,
    run: async (spec) => {
      const startedAt = performance.now();
      const handle = await temporal.workflow.start('aiSdkAgent', {
        taskQueue,
        workflowId: `bench-tai-${randomUUID()}`,
        workflowExecutionTimeout: RUN_TIMEOUT,
        args: [
          {
            modelId: scriptedModelId(spec),
            system: SYSTEM_PROMPT,
            prompt: USER_PROMPT,
            maxSteps: modelSteps(spec),
            toolDescription: TOOL_DESCRIPTION,
          },
        ],
      });
      const output = (await handle.result()) as { text: string; steps: number };
      const ms = performance.now() - startedAt;
      check(label, spec, output.text, output.steps);
      return { ms, workflowId: handle.workflowId };
    },
    transcript: async (workflowId) => await temporal.workflow.getHandle(workflowId).query<unknown[]>('transcript'),
  };
}
