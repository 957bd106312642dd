import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowStartOptions } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { agentRun } from '../../workflows/agent-run.js';
import {
  AGENT_RUN_WORKFLOW,
  DEFAULT_TASK_QUEUE,
  type AgentRunInput,
  type TranscriptMessage,
} from '../protocol/index.js';
import { withPayloadCodec } from '../codec/with-payload-codec.js';
import { AgentRun, type AgentRunResult } from './agent-run.js';

/**
 * Options of `AgentClient.start`: the run's own settings (user, conversation, serializable context stored in
 * history, step budget, approval timeout, history budget; see `AgentRunInput`) plus where and how to start it.
 */
export interface StartRunOptions extends Omit<AgentRunInput, 'agentName' | 'input' | 'continuation'> {
  workflowId?: string;
  taskQueue?: string;
  /** Temporal options such as `workflowExecutionTimeout`, `memo`, `searchAttributes`. */
  workflow?: Partial<Omit<WorkflowStartOptions<typeof agentRun>, 'args' | 'workflowId' | 'taskQueue'>>;
}

/** Options of `AgentClient`. */
export interface AgentClientOptions {
  /** An existing Temporal client; otherwise one is connected to `address` / `TEMPORAL_ADDRESS`. */
  client?: Client;
  address?: string;
  namespace?: string;
  /** Default task queue for runs. Default: `TEMPORAL_TASK_QUEUE` or `durable-agent`. */
  taskQueue?: string;
  /**
   * The worker's payload codec (see `createPayloadCodec`), for `connect` to build the client with. Default:
   * `payloadCodecFromEnv()`. `false`: no codec. An existing `client` keeps its own data converter.
   */
  payloadCodec?: PayloadCodec | false;
}

/** Starts and finds durable agent runs. */
export class AgentClient {
  readonly temporal: Client;
  private readonly taskQueue: string;

  constructor(options: AgentClientOptions & { client: Client }) {
    // A Temporal client's data converter is fixed when it is built: a codec here could only be ignored.
    if (options.payloadCodec) throw payloadCodecWithClientError();
    this.temporal = options.client;
    this.taskQueue = options.taskQueue ?? process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  }

  /** Connects to Temporal (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE` by default). */
  static async connect(options: AgentClientOptions = {}): Promise<AgentClient> {
    if (options.client) return new AgentClient({ ...options, client: options.client });
    const { payloadCodec, ...rest } = options;
    const dataConverter = withPayloadCodec(undefined, payloadCodec);
    const connection = await Connection.connect({
      address: options.address ?? process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
    });
    const client = new Client({
      connection,
      namespace: options.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default',
      ...(dataConverter ? { dataConverter } : {}),
    });
    return new AgentClient({ ...rest, client });
  }

  /** Starts a run of `agentName` on `input` (a string or model messages). */
  async start(
    agentName: string,
    input: string | TranscriptMessage[],
    options: StartRunOptions = {},
  ): Promise<AgentRun> {
    const { workflowId, taskQueue, workflow, ...runOptions } = options;
    const runInput: AgentRunInput = { ...runOptions, agentName, input };
    const handle = await this.temporal.workflow.start(AGENT_RUN_WORKFLOW, {
      ...workflow,
      args: [runInput],
      taskQueue: taskQueue ?? this.taskQueue,
      workflowId: workflowId ?? `agent-${agentName}-${randomUUID()}`,
    });
    return new AgentRun(this.temporal.workflow.getHandle(handle.workflowId));
  }

  /** A handle on an existing run by workflow id (the latest execution, across continue-as-new). */
  getRun(workflowId: string): AgentRun {
    return new AgentRun(this.temporal.workflow.getHandle(workflowId));
  }

  /** Starts a run and waits for its result. */
  async generateText(
    agentName: string,
    input: string | TranscriptMessage[],
    options: StartRunOptions = {},
  ): Promise<AgentRunResult> {
    const run = await this.start(agentName, input, options);
    return await run.result();
  }

  /** Recent agent runs (newest first), optionally filtered by a Temporal visibility query. */
  async *list(query?: string): AsyncGenerator<{ workflowId: string; status: string; startTime: Date }> {
    const filter = `WorkflowType = '${AGENT_RUN_WORKFLOW}'${query ? ` AND (${query})` : ''}`;
    for await (const execution of this.temporal.workflow.list({ query: filter })) {
      yield { workflowId: execution.workflowId, status: execution.status.name, startTime: execution.startTime };
    }
  }
}

function payloadCodecWithClientError(): Error {
  return new Error(
    'AgentClient got both a Temporal client and a payloadCodec: a client keeps the codecs it was built with. ' +
      'Build it with new Client({ connection, dataConverter: { payloadCodecs: [codec] } }), or pass payloadCodec ' +
      'to AgentClient.connect without a client.',
  );
}
