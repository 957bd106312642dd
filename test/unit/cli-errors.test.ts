import { ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { NoWorkerError } from '../../src/client/errors/no-worker-error.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { WorkerTimeoutError } from '../../src/client/errors/worker-timeout-error.js';
import { CliFailure } from '../../src/cli/errors/cli-failure.js';
import { CliUsageError } from '../../src/cli/errors/cli-usage-error.js';
import { explainError } from '../../src/cli/explain-error.js';
import { ConnectionConfigError } from '../../src/connection/errors/connection-config-error.js';
import { TemporalConnectionError } from '../../src/connection/errors/temporal-connection-error.js';

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
    const explained = explainError(
      new RunRequestRejectedError("No pending approval for tool call 'x'.", { code: 'Approval.UnknownCall' }),
      where,
    );
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

  it("keeps the library's own explanations: no worker, a slow worker, connection and configuration errors", () => {
    const noWorker = new NoWorkerError({
      runId: 'run-1',
      taskQueue: 'q',
      namespace: 'default',
      request: 'the state query',
      timeoutMs: 5_000,
      pending: false,
    });
    const slow = new WorkerTimeoutError({
      runId: 'run-1',
      taskQueue: 'q',
      request: 'the approval',
      timeoutMs: 20_000,
      pollers: [{ identity: '42@host', lastPollAgoMs: 1_500 }],
      pending: true,
    });
    const connect = new TemporalConnectionError({
      address: 'a:1',
      namespace: 'default',
      origin: 'default address',
      problem: 'nothing is listening on a:1',
      advice: 'Start a server.',
    });
    const config = new ConnectionConfigError("Temporal profile 'x' (from TEMPORAL_PROFILE) is not in …");
    for (const error of [noWorker, slow, connect, config]) {
      const explained = explainError(error, where);
      expect(CliFailure.isInstance(explained)).toBe(true);
      expect(explained.message).toBe(error.message);
      expect(explained.cause).toBe(error);
    }
    expect(noWorker.message).toBe(
      "No worker is polling task queue 'q' (namespace 'default'), so nothing answered the state query of run " +
        "'run-1' within 5 s. Start a worker that hosts this agent on task queue 'q' (e.g. TEMPORAL_TASK_QUEUE=q " +
        'npx durable-agent worker ./agents.ts) and try again.',
    );
    expect(slow.message).toContain(
      "No answer to the approval of run 'run-1' within 20 s, although 1 worker polls task queue 'q' (42@host, last " +
        'polled 1.5 s ago).',
    );
    // An update nobody answered stays with Temporal: the message says it may still be applied.
    expect(slow.message).toContain('a worker that starts later may still apply it');
    expect(connect.message).toBe(
      "Cannot connect to Temporal at a:1 (namespace 'default'; default address): nothing is listening on a:1. " +
        'Start a server.',
    );
  });

  it('explains an unreachable server and shows what Temporal said otherwise', () => {
    expect(explainError(grpcError(14, 'connection refused'), where).message).toBe(
      'Lost the connection to Temporal at 127.0.0.1:7233: connection refused. Check that the server is up, and try again.',
    );
    expect(explainError(grpcError(3, 'invalid query: malformed SQL query'), where).message).toBe(
      'Temporal refused the request: invalid query: malformed SQL query',
    );
    expect(explainError(new Error('boom'), where).message).toBe('boom');
    expect(explainError('odd', where).message).toBe('odd');
  });
});
