// Turns what the client library throws into one sentence a person can act on. Anything not recognised keeps its
// own message: a bare message beats a wrong guess.
import { ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { NoWorkerError } from '../client/errors/no-worker-error.js';
import { RunRequestRejectedError } from '../client/errors/run-request-rejected-error.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { WorkerTimeoutError } from '../client/errors/worker-timeout-error.js';
import { ConnectionConfigError } from '../connection/errors/connection-config-error.js';
import { TemporalConnectionError } from '../connection/errors/temporal-connection-error.js';
import { CliFailure } from './errors/cli-failure.js';
import { CliUsageError } from './errors/cli-usage-error.js';
import { terminalSafeLine } from './terminal-text.js';

/** gRPC status codes the CLI explains. */
const GRPC = { UNAVAILABLE: 14 } as const;

/** Where the CLI talks to, for messages. */
export interface ConnectionInfo {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** What was being done when the error happened. */
export interface ErrorContext extends ConnectionInfo {
  runId?: string;
}

/** An error as a CliUsageError or CliFailure with a clear message. */
export function explainError(error: unknown, context: ErrorContext): CliUsageError | CliFailure {
  if (CliUsageError.isInstance(error) || CliFailure.isInstance(error)) return error;
  // The library's own errors already say where, what and what to do.
  if (
    TemporalConnectionError.isInstance(error) ||
    ConnectionConfigError.isInstance(error) ||
    NoWorkerError.isInstance(error) ||
    WorkerTimeoutError.isInstance(error)
  ) {
    return new CliFailure(error.message, { cause: error });
  }
  const run = context.runId ? `run '${terminalSafeLine(context.runId)}'` : 'the run';
  // Temporal's own answer for a closed run (the client reports it as Run.Ended) reads as before.
  const ended =
    RunRequestRejectedError.isInstance(error) &&
    error.code === RefusalCode.RunEnded &&
    error.cause instanceof WorkflowNotFoundError;
  if (RunRequestRejectedError.isInstance(error) && !ended) {
    return new CliFailure(`Rejected by ${run}: ${error.message}`, { cause: error });
  }
  if (ended || error instanceof WorkflowNotFoundError) {
    if (ended || /already completed|already finished|closed/i.test(error.message)) {
      return new CliFailure(`The ${run.replace(/^the /, '')} has already ended, so it cannot take this request.`, {
        cause: error,
      });
    }
    return new CliFailure(`No ${run.replace(/^the /, '')} in namespace '${context.namespace}' at ${context.address}.`, {
      cause: error,
    });
  }
  if (error instanceof WorkflowExecutionAlreadyStartedError) {
    return new CliFailure(`A run with workflow id '${error.workflowId}' already exists; pick another --id.`, {
      cause: error,
    });
  }
  const code = grpcCode(error);
  if (code === GRPC.UNAVAILABLE || isConnectFailure(error)) {
    return new CliFailure(
      `Lost the connection to Temporal at ${context.address}: ${detailsOf(error)}. Check that the server is up, ` +
        'and try again.',
      { cause: error },
    );
  }
  if (error instanceof ServiceError)
    return new CliFailure(`Temporal refused the request: ${detailsOf(error)}`, { cause: error });
  return new CliFailure(error instanceof Error ? error.message : String(error), { cause: error });
}

function grpcCode(error: unknown): number | undefined {
  const candidates = [error, (error as { cause?: unknown } | null)?.cause];
  for (const candidate of candidates) {
    const code = (candidate as { code?: unknown } | null)?.code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

function isConnectFailure(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  const message = error instanceof Error ? error.message : '';
  return name === 'TransportError' || /ECONNREFUSED|failed to connect|connection refused|timed out/i.test(message);
}

function detailsOf(error: unknown): string {
  const cause = (error as { cause?: { details?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.details === 'string' && cause.details) return cause.details;
  if (error instanceof Error) return error.message;
  return String(error);
}
