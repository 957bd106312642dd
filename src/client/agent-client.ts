import { randomUUID } from 'node:crypto';
import { resolveLiveStream, type LiveStreamOption } from '../live/live-stream-config.js';
import { useLiveStream } from '../live/live-clients.js';
import { Client, type WorkflowStartOptions } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { agentRun } from '../../workflows/agent-run.js';
import {
  AGENT_RUN_WORKFLOW,
  DEFAULT_TASK_QUEUE,
  type AgentRunInput,
  type TranscriptMessage,
} from '../protocol/index.js';
import { withPayloadCodec } from '../codec/with-payload-codec.js';
import { connectClient } from '../connection/connect-client.js';
import type { ConnectionSettings, TemporalConnectionOptions } from '../connection/connection-options.js';
import { resolveConnection } from '../connection/resolve-connection.js';
import { AgentRun, type AgentRunOptions, type AgentRunResult } from './agent-run.js';
import type { FullStreamPart } from './full-stream.js';

/** What `AgentClient.streamText` returns: the run, and its stream as the AI SDK's `streamText` result has it. */
export interface StreamTextResult {
  /** The run's workflow id (`client.getRun(runId)` finds it again from any process). */
  runId: string;
  /** The run itself: approve, deny, answer, cancel, resume its stream from an offset. */
  run: AgentRun;
  /** The text as the model writes it (see `AgentRun.textStream`). Each iteration reads from the run's start. */
  textStream: AsyncIterable<string>;
  /** Typed parts with offsets (see `AgentRun.fullStream`). Each iteration reads from the run's start. */
  fullStream: AsyncIterable<FullStreamPart>;
  /** The run's final text, once it has finished (rejects as `run.result()` does). Asked for on first use. */
  readonly text: Promise<string>;
}
import { Conversation, type ConversationOptions } from './conversation.js';

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

/**
 * Options of `AgentClient`. Where to connect (`address`, `namespace`, `apiKey`, `tls`, `profile`, …) comes from
 * Temporal's environment configuration (`TEMPORAL_*` variables, `temporal.toml` profiles) unless given.
 */
export interface AgentClientOptions extends TemporalConnectionOptions, AgentRunOptions {
  /** An existing Temporal client; otherwise `connect` opens one from the connection settings. */
  client?: Client;
  /** Default task queue for runs. Default: `TEMPORAL_TASK_QUEUE` (of `env`) or `durable-agent`. */
  taskQueue?: string;
  /** How long `connect` waits for the server to answer. Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * The worker's payload codec (see `createPayloadCodec`), for `connect` to build the client with. Default:
   * `payloadCodecFromEnv()`. `false`: no codec. An existing `client` keeps its own data converter.
   */
  payloadCodec?: PayloadCodec | false;
  /**
   * Where runs' live streams are read from: Redis (`{ url, key }`, or a transport) for runs whose workers publish
   * there, else the run's Workflow Streams log. Default: Redis when `DURABLE_AGENT_REDIS_URL` is set (with
   * `DURABLE_AGENT_STREAM_KEY`, the workers' key), else `'workflow'`. See docs/durable-runs.md. The transport is
   * attached to the Temporal client: AgentClients sharing one read runs the same way (the last one made with Redis
   * decides), so give a Workflow Streams reader and a Redis one Temporal clients of their own.
   */
  liveStream?: LiveStreamOption;
}

/** Starts and finds durable agent runs. */
export class AgentClient {
  readonly temporal: Client;
  /** The settings `connect` used (address, namespace, profile, TLS, where each came from); not set otherwise. */
  readonly connectionSettings: ConnectionSettings | undefined;
  private readonly taskQueue: string;
  private readonly runOptions: AgentRunOptions;

  constructor(options: AgentClientOptions & { client: Client; connectionSettings?: ConnectionSettings }) {
    // A Temporal client's data converter is fixed when it is built: a codec here could only be ignored.
    if (options.payloadCodec) throw payloadCodecWithClientError();
    this.temporal = options.client;
    this.connectionSettings = options.connectionSettings;
    this.taskQueue = options.taskQueue ?? (options.env ?? process.env).TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
    this.runOptions = options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {};
    const live = resolveLiveStream(options.liveStream, options.env);
    if (live) useLiveStream(this.temporal, live);
  }

  /**
   * Connects to Temporal with the given options, else Temporal's environment configuration: the `TEMPORAL_*`
   * variables (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS_*`, …) over the
   * `TEMPORAL_PROFILE` profile of `temporal.toml`.
   *
   * @throws TemporalConnectionError saying where it tried, with which settings, and what to check.
   * @throws ConnectionConfigError for a profile, configuration file or certificate file that cannot be used.
   */
  static async connect(options: AgentClientOptions = {}): Promise<AgentClient> {
    if (options.client) return new AgentClient({ ...options, client: options.client });
    const { payloadCodec, ...rest } = options;
    const dataConverter = withPayloadCodec(undefined, payloadCodec);
    const settings = resolveConnection(options);
    const connection = await connectClient(
      settings,
      options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {},
    );
    const client = new Client({
      connection,
      namespace: settings.namespace,
      ...(dataConverter ? { dataConverter } : {}),
    });
    return new AgentClient({ ...rest, client, connectionSettings: settings });
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
      // The agent's name in the memo lets a listing (`durable-agent list`) show it without reading each history.
      memo: { agent: agentName, ...workflow?.memo },
      args: [runInput],
      taskQueue: taskQueue ?? this.taskQueue,
      workflowId: workflowId ?? `agent-${agentName}-${randomUUID()}`,
    });
    // Pinned to the execution just started: a later run that reuses the workflow id is another run.
    return this.getRun(handle.workflowId, { firstExecutionRunId: handle.firstExecutionRunId });
  }

  /**
   * A handle on an existing run by workflow id. With `firstExecutionRunId` (the run id of the run's first
   * execution, e.g. `run.firstExecutionRunId` saved earlier) it is pinned to that run and its continued-as-new
   * executions; without it, it follows the workflow id's latest execution, whichever run that is.
   */
  getRun(workflowId: string, options: { firstExecutionRunId?: string } = {}): AgentRun {
    const { firstExecutionRunId } = options;
    if (firstExecutionRunId === undefined)
      return new AgentRun(this.temporal.workflow.getHandle(workflowId), this.runOptions);
    const handle = this.temporal.workflow.getHandle(workflowId, undefined, { firstExecutionRunId });
    return new AgentRun(handle, this.runOptions, firstExecutionRunId);
  }

  /**
   * A handle on conversation `id` with `options.agent` (see docs/conversations.md): its first `send` creates it, later
   * ones (from any process, with the same id) add turns to it. `conversationId` and `userId` are VoltAgent's memory
   * keys: every turn's run and its tools see them, and the turn number, in their context.
   */
  conversation(id: string, options: ConversationOptions): Conversation {
    return new Conversation(this.temporal, id, options, options.taskQueue ?? this.taskQueue, this.runOptions);
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

  /**
   * Starts a run and returns its streams in the AI SDK's idiom: `for await (const text of result.textStream)`
   * prints the answer as it is written; `fullStream` has every part (steps, tool calls, approvals, resets).
   */
  async streamText(
    agentName: string,
    input: string | TranscriptMessage[],
    options: StartRunOptions = {},
  ): Promise<StreamTextResult> {
    // This client watches from the start: the run's first step publishes its first piece at once.
    const streaming = options.streaming ?? true;
    const run = await this.start(agentName, input, {
      ...options,
      ...(streaming === false ? {} : { streaming: { ...(streaming === true ? {} : streaming), watched: true } }),
    });
    let text: Promise<string> | undefined;
    return {
      runId: run.id,
      run,
      textStream: run.textStream,
      fullStream: run.fullStream,
      get text() {
        return (text ??= run.result().then((result) => result.text));
      },
    };
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
