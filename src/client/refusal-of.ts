import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, REFUSAL_CODES, RefusalCode } from '../protocol/index.js';
import { RunRequestRejectedError } from './errors/run-request-rejected-error.js';

/** Which kind of update was refused: it decides what a pre-0.4.0 worker's untyped refusal meant. */
export type RefusedRequest = 'approval' | 'tool-result' | 'elicitation';

/**
 * The update's failure as a {@link RunRequestRejectedError} with its code, or undefined when `error` is not a
 * refusal (a connection failure, a timeout: the caller handles those).
 */
export function refusalOf(error: unknown, request: RefusedRequest, runId: string): RunRequestRejectedError | undefined {
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof Error) {
    return new RunRequestRejectedError(error.cause.message, { code: codeOf(error.cause, request), cause: error });
  }
  // Temporal answers an update to a closed run itself, before any worker sees it.
  if (error instanceof WorkflowNotFoundError && /already completed|already finished|closed/i.test(error.message)) {
    return runEnded(runId, undefined, error);
  }
  return undefined;
}

/** The refusal of a request sent to a run that has ended. */
export function runEnded(
  runId: string,
  status: string | undefined,
  cause?: unknown,
  consequence = 'it takes no more requests',
): RunRequestRejectedError {
  const how = status === undefined ? 'ended' : status === 'completed' ? 'completed' : `been ${status}`;
  return new RunRequestRejectedError(`Run '${runId}' has ${how}: ${consequence}.`, {
    code: RefusalCode.RunEnded,
    ...(cause !== undefined ? { cause } : {}),
  });
}

function codeOf(failure: Error, request: RefusedRequest): RefusalCode {
  if (!(failure instanceof ApplicationFailure) || failure.type == null) return RefusalCode.RunRefused;
  if (REFUSAL_CODES.has(failure.type)) return failure.type as RefusalCode;
  // Workers before 0.4.0 refused an approval their `authorizeDecision` hook rejected with this type; their other
  // refusals carry no code at all.
  if (failure.type === FailureType.ApprovalRefused && request === 'approval') return RefusalCode.ApprovalNotAuthorized;
  return RefusalCode.RunRefused;
}
