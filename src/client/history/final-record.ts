// The record a run keeps in its memo when it ends (workflows/final-record.ts): its final events and state, read from
// Temporal with no worker, decoded with the client's data converter and payload codec.
import type { WorkflowClient } from '@temporalio/client';
import type { SerializationContext } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import proto from '@temporalio/proto';
import { FINAL_RECORD_MEMO_KEY, isFinalRunRecord, type FinalRunRecord } from '../../protocol/index.js';

// A CommonJS package: its namespace is its default export under Node's ESM loader.
const Status = proto.temporal.api.enums.v1.WorkflowExecutionStatus;

/** One execution as Temporal describes it, with its final record still encoded. */
export interface DescribedExecution {
  runId: string;
  /** Still running: its live state needs a worker. */
  running: boolean;
  /** The final record, decoded on demand; undefined when the execution has none (running, or ended before 0.4.0). */
  finalRecord(): Promise<FinalRunRecord | undefined>;
}

/**
 * Describes one execution (`runId` undefined: the workflow id's latest) with Temporal's own RPC, so that only this
 * library's memo field is decoded: another memo field this client cannot decode does not make the read fail.
 */
export async function describeExecution(
  client: WorkflowClient,
  workflowId: string,
  runId: string | undefined,
): Promise<DescribedExecution> {
  const response = await client.workflowService.describeWorkflowExecution({
    namespace: client.options.namespace,
    execution: { workflowId, ...(runId ? { runId } : {}) },
  });
  const info = response.workflowExecutionInfo;
  const status = info?.status ?? Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED;
  const payload = info?.memo?.fields?.[FINAL_RECORD_MEMO_KEY];
  const context: SerializationContext = { type: 'workflow', namespace: client.options.namespace, workflowId };
  const ended =
    status === Status.WORKFLOW_EXECUTION_STATUS_COMPLETED ||
    status === Status.WORKFLOW_EXECUTION_STATUS_FAILED ||
    status === Status.WORKFLOW_EXECUTION_STATUS_CANCELED;
  return {
    runId: info?.execution?.runId ?? runId ?? '',
    running: status === Status.WORKFLOW_EXECUTION_STATUS_RUNNING,
    finalRecord: async () => {
      // Only a run that ended through its own code wrote the record; a terminated one may hold a forged memo field.
      if (!ended || !payload) return undefined;
      const value = await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, [payload], context);
      return isFinalRunRecord(value) ? value : undefined;
    },
  };
}
