import { ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { CliFailure } from '../../src/cli/errors/cli-failure.js';
import { CliUsageError } from '../../src/cli/errors/cli-usage-error.js';
import { NoWorkerError } from '../../src/cli/errors/no-worker-error.js';
import { explainError } from '../../src/cli/explain-error.js';

const where = { address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'durable-agent', runId: 'run-1' };

/** A gRPC-level error as the Temporal client reports it: a ServiceError whose cause carries the status code. */
function grpcError(code: number, details: string): ServiceError {
  return new ServiceError('Failed to query Workflow', { cause: Object.assign(new Error(details), { code, details }) });
}

describe('explainError', () => {
  it("passes the CLI's own errors through", () => {
    const usage = new CliUsageError('Missing <runId>.');
    const failure = new CliFailure('Nothing to cancel.');
    expect(explainError(usage, where)).toBe(usage);
    expect(explainError(failure, where)).toBe(failure);
  });

  it('names the run that refused a request, with its reason', () => {
    const explained = explainError(new RunRequestRejectedError("No pending approval for tool call 'x'."), where);
    expect(explained.message).toBe("Rejected by run 'run-1': No pending approval for tool call 'x'.");
  });

  it('tells an unknown run from one that has ended', () => {
    expect(
      explainError(new WorkflowNotFoundError('workflow not found for ID: run-1', 'run-1', undefined), where).message,
    ).toBe("No run 'run-1' in namespace 'default' at 127.0.0.1:7233.");
    expect(
      explainError(new WorkflowNotFoundError('workflow execution already completed', 'run-1', undefined), where)
        .message,
    ).toBe("The run 'run-1' has already ended, so it cannot take this request.");
    expect(explainError(new WorkflowExecutionAlreadyStartedError('exists', 'my-id', 'agentRun'), where).message).toBe(
      "A run with workflow id 'my-id' already exists; pick another --id.",
    );
  });

  it('says to start a worker when a query times out waiting for one', () => {
    const explained = explainError(grpcError(4, 'query timed out before a worker could process it'), where);
    expect(NoWorkerError.isInstance(explained)).toBe(true);
    expect(CliFailure.isInstance(explained)).toBe(true);
    expect(explained.message).toBe(
      "No worker answered for run 'run-1'. A worker answers queries and decisions for its runs: start one polling " +
        "task queue 'durable-agent' (e.g. npm run worker) and try again.",
    );
  });

  it('explains an unreachable server and shows what Temporal said otherwise', () => {
    expect(explainError(grpcError(14, 'connection refused'), where).message).toMatch(
      /^Cannot reach Temporal at 127\.0\.0\.1:7233 \(set TEMPORAL_ADDRESS; .*\): connection refused$/,
    );
    expect(explainError(grpcError(3, 'invalid query: malformed SQL query'), where).message).toBe(
      'Temporal refused the request: invalid query: malformed SQL query',
    );
    expect(explainError(new Error('boom'), where).message).toBe('boom');
    expect(explainError('odd', where).message).toBe('odd');
  });
});
