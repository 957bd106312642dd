// The record a run keeps as it ends (workflows/final-record.ts): its final events and state, read from Temporal with
// no worker, decoded with the client's data converter and payload codec.
import { isGrpcServiceError, type WorkflowClient } from '@temporalio/client';
import { WorkflowNotFoundError, type Payload, type SerializationContext } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import proto from '@temporalio/proto';
import { FINAL_RECORD_MEMO_KEY, isFinalRunRecord, type FinalRunRecord } from '../../protocol/index.js';

// A CommonJS package: its namespace is its default export under Node's ESM loader.
const Status = proto.temporal.api.enums.v1.WorkflowExecutionStatus;

const GRPC_NOT_FOUND = 5;

/** Events read from the end of a history to find the record: the run's last workflow task and its close. */
const LAST_TASK_EVENTS = 50;

/** One execution as Temporal describes it. */
export interface DescribedExecution {
  runId: string;
  /** Still running: its live state needs a worker. */
  running: boolean;
  /**
   * The execution's final record, read on demand; undefined when it has none (running, terminated, or ended on
   * v0.3.0 code or earlier).
   */
  finalRecord(): Promise<FinalRunRecord | undefined>;
}

/** Describes one execution (`runId` undefined: the workflow id's latest) with Temporal's own RPC. */
export async function describeExecution(
  client: WorkflowClient,
  workflowId: string,
  runId: string | undefined,
): Promise<DescribedExecution> {
  const response = await client.workflowService
    .describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId, ...(runId ? { runId } : {}) },
    })
    .catch((error: unknown) => {
      // As the Temporal client's own `describe` says it, so callers tell an unknown run as before.
      if (isGrpcServiceError(error) && Number(error.code) === GRPC_NOT_FOUND) {
        throw new WorkflowNotFoundError(error.details || 'Workflow not found', workflowId, runId);
      }
      throw error;
    });
  const info = response.workflowExecutionInfo;
  const status = info?.status ?? Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED;
  const described = info?.execution?.runId || runId || '';
  const ended =
    status === Status.WORKFLOW_EXECUTION_STATUS_COMPLETED ||
    status === Status.WORKFLOW_EXECUTION_STATUS_FAILED ||
    status === Status.WORKFLOW_EXECUTION_STATUS_CANCELED;
  return {
    runId: described,
    running: status === Status.WORKFLOW_EXECUTION_STATUS_RUNNING,
    finalRecord: async () => (ended ? await finalRecordOf(client, workflowId, described) : undefined),
  };
}

/**
 * The record in the memo change the execution's last workflow task made, read backwards from the close event.
 * Only the run's own code writes there: a memo set by whoever started the workflow (under the same key) is not
 * this record, which is why it is not read from `describe`. Decoded with the client's converter, codec included.
 */
export async function finalRecordOf(
  client: WorkflowClient,
  workflowId: string,
  runId: string,
): Promise<FinalRunRecord | undefined> {
  const response = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: LAST_TASK_EVENTS,
  });
  let payload: Payload | undefined;
  for (const event of response.history?.events ?? []) {
    // The commands of the last task come after its completion: an earlier task's memo is not the final record.
    if (event.workflowTaskCompletedEventAttributes) break;
    payload ??= event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[FINAL_RECORD_MEMO_KEY];
  }
  if (!payload) return undefined;
  const context: SerializationContext = { type: 'workflow', namespace: client.options.namespace, workflowId };
  const value = await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, [payload], context);
  return isFinalRunRecord(value) ? value : undefined;
}
