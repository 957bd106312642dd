// The executions of one run: the first execution and those it continued as new into. A handle pinned to its first
// execution reads them, and never an execution started later under the same workflow id.
import proto from '@temporalio/proto';
import type { WorkflowClient } from '@temporalio/client';

// A CommonJS package: its namespace is its default export under Node's ESM loader.
const CLOSE_EVENT = proto.temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;

/** More executions than any run makes (each one has thousands of events): bounds a walk over a corrupt chain. */
const MAX_EXECUTIONS = 10_000;

/**
 * The run ids of the chain that `firstRunId` started, in order: each execution continued as new (or retried)
 * into the next, and the last one is running or closed for good.
 */
export async function chainRunIds(client: WorkflowClient, workflowId: string, firstRunId: string): Promise<string[]> {
  const runIds = [firstRunId];
  for (let runId: string | undefined = firstRunId; runIds.length < MAX_EXECUTIONS; ) {
    runId = await nextRunId(client, workflowId, runId);
    if (runId === undefined) return runIds;
    runIds.push(runId);
  }
  return runIds;
}

/**
 * The run id of the chain's current execution. One `describe` when the workflow id's latest execution belongs to
 * the chain (the usual case); a walk along the chain when a later run reused the workflow id.
 */
export async function currentRunId(client: WorkflowClient, workflowId: string, firstRunId: string): Promise<string> {
  const latest = await client.getHandle(workflowId).describe();
  if (latest.runId === firstRunId || latest.raw.workflowExecutionInfo?.firstRunId === firstRunId) return latest.runId;
  return (await chainRunIds(client, workflowId, firstRunId)).at(-1)!;
}

/** The execution `runId` continued into, or undefined when it is still running or closed for good. */
export async function nextRunId(
  client: WorkflowClient,
  workflowId: string,
  runId: string,
): Promise<string | undefined> {
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    historyEventFilterType: CLOSE_EVENT,
    waitNewEvent: false,
    skipArchival: true,
  });
  const close = response.history?.events?.[0];
  if (!close) return undefined;
  const next =
    close.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ??
    close.workflowExecutionCompletedEventAttributes?.newExecutionRunId ??
    close.workflowExecutionFailedEventAttributes?.newExecutionRunId ??
    close.workflowExecutionTimedOutEventAttributes?.newExecutionRunId;
  return next || undefined;
}
