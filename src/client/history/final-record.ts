// The record a run keeps as it ends (workflows/final-record.ts): its final events and state, read from Temporal with
// no worker, decoded with the client's data converter and payload codec.
import { isGrpcServiceError, type WorkflowClient } from '@temporalio/client';
import { WorkflowNotFoundError, type Payload, type SerializationContext } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import proto from '@temporalio/proto';
import { FINAL_RECORD_MEMO_KEY, isFinalRunRecord, type FinalRunRecord } from '../../protocol/index.js';
import { RUN_PROTOCOL_MEMO_KEY, isRunProtocol } from '../../protocol/run-protocol.js';

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
  /**
   * The run protocol the execution recorded in its memo in its first workflow task (`workflows/protocol.ts`), read
   * on demand; undefined when its memo has none: an execution of v0.1.0–v0.3.0 code, or one whose first task is
   * not complete yet ({@link firstTaskPending}).
   */
  protocol(): Promise<number | undefined>;
  /**
   * The execution runs and its first workflow task has not completed yet (its history holds at most the start, that
   * task, and a failure of it): its memo does not say its protocol yet.
   */
  firstTaskPending: boolean;
}

/** Events of an execution whose first workflow task has not completed: started, scheduled, started, failed. */
const FIRST_TASK_PENDING_EVENTS = 4;

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
  const running = status === Status.WORKFLOW_EXECUTION_STATUS_RUNNING;
  const protocolPayload = info?.memo?.fields?.[RUN_PROTOCOL_MEMO_KEY];
  return {
    runId: described,
    running,
    finalRecord: async () => (ended ? await finalRecordOf(client, workflowId, described) : undefined),
    protocol: async () => {
      if (!protocolPayload) return undefined;
      const value = await decodeMemo(client, workflowId, protocolPayload).catch(() => undefined);
      return isRunProtocol(value) ? value : undefined;
    },
    firstTaskPending: running && Number(info?.historyLength ?? 0) <= FIRST_TASK_PENDING_EVENTS,
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
  const value = await decodeMemo(client, workflowId, payload);
  return isFinalRunRecord(value) ? value : undefined;
}

/** A memo value, decoded with the client's converter, codec included (the worker encoded it with its own). */
async function decodeMemo(client: WorkflowClient, workflowId: string, payload: Payload): Promise<unknown> {
  const context: SerializationContext = { type: 'workflow', namespace: client.options.namespace, workflowId };
  return await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, [payload], context);
}
