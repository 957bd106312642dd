// Starting an agent run from a team's own workflow, as a child workflow. Workflow-safe: only @temporalio/workflow
// and the protocol's types and constants; no Node, no AI or MCP SDK.
import {
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  executeChild,
  startChild,
  uuid4,
  workflowInfo,
  type ChildWorkflowHandle,
  type ChildWorkflowOptions,
} from '@temporalio/workflow';
import {
  AGENT_RUN_WORKFLOW,
  type AgentRunInput,
  type AgentRunOutput,
  type TranscriptMessage,
} from '../protocol/index.js';

/** The `agentRun` workflow's signature, for typed child handles. */
export type AgentRunWorkflow = (input: AgentRunInput) => Promise<AgentRunOutput>;

/** Options of {@link startAgentRun} and {@link executeAgentRun}: the run's own settings plus child options. */
export interface AgentChildRunOptions extends Omit<AgentRunInput, 'agentName' | 'input' | 'continuation'> {
  /**
   * The run's workflow id, by which clients approve its tool calls (`AgentClient.getRun(id)`). Default:
   * `<parent workflow id>/agent-<agent name>-<uuid>`, deterministic on replay.
   */
  workflowId?: string;
  /** Task queue of the worker hosting the agent. Default: the parent's. */
  taskQueue?: string;
  /** Other child workflow options (timeouts, memo, search attributes, close and cancellation policies, …). */
  workflow?: Omit<ChildWorkflowOptions, 'args' | 'workflowId' | 'taskQueue'>;
}

/**
 * Starts an agent run as a child of the current workflow and returns its handle once the server has started it.
 * Cancellation: cancelling the parent (or the cancellation scope of this call) cancels the run, which aborts its
 * running tools and model call and waits for their cleanup before the parent sees the `ChildWorkflowFailure`. If the
 * parent closes first (completes, fails, times out, is terminated), the run is asked to cancel
 * (`ParentClosePolicy.REQUEST_CANCEL`) rather than terminated, so its tools still clean up; pass
 * `workflow.parentClosePolicy: ParentClosePolicy.ABANDON` to let it outlive the parent.
 */
export function startAgentRun(
  agentName: string,
  input: string | TranscriptMessage[],
  options: AgentChildRunOptions = {},
): Promise<ChildWorkflowHandle<AgentRunWorkflow>> {
  return startChild<AgentRunWorkflow>(AGENT_RUN_WORKFLOW, childOptions(agentName, input, options));
}

/** Runs an agent as a child of the current workflow and returns its output (see {@link startAgentRun}). */
export function executeAgentRun(
  agentName: string,
  input: string | TranscriptMessage[],
  options: AgentChildRunOptions = {},
): Promise<AgentRunOutput> {
  return executeChild<AgentRunWorkflow>(AGENT_RUN_WORKFLOW, childOptions(agentName, input, options));
}

function childOptions(
  agentName: string,
  input: string | TranscriptMessage[],
  options: AgentChildRunOptions,
): ChildWorkflowOptions & { args: [AgentRunInput] } {
  const { workflowId, taskQueue, workflow, ...run } = options;
  return {
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    ...workflow,
    ...(taskQueue !== undefined ? { taskQueue } : {}),
    // uuid4() is the workflow's seeded random: the same id on every replay.
    workflowId: workflowId ?? `${workflowInfo().workflowId}/agent-${agentName}-${uuid4()}`,
    args: [{ ...run, agentName, input }],
  };
}
