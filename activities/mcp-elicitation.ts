import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import type { McpElicitationAnswer, McpElicitationHandler } from '../src/mcp/elicitation.js';
import type { ElicitationRecord, RunRef } from '../src/protocol/index.js';
import { elicitationQuery, elicitationRequestSignal } from '../src/protocol/run-messages.js';

const MARKER = Symbol.for('durable-agent.ElicitationPending');

/**
 * The reason an MCP tool call is aborted when nobody answered its question while the activity held it open: the
 * activity ends, the run waits for the answer (its wait is not the tool's), and runs the call again.
 */
export class ElicitationPending extends Error {
  private readonly [MARKER] = true;
  constructor(readonly elicitationId: string) {
    super(`Waiting for a person to answer elicitation '${elicitationId}'`);
    this.name = 'ElicitationPending';
  }

  static isInstance(value: unknown): value is ElicitationPending {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}

/** How often a held call asks the run whether its question has been answered. */
const POLL_MS = 500;

/**
 * Answers an MCP server's questions during one tool call, through the run. Each question gets an id that is the
 * same when the call is re-issued and the server asks the same thing again (`<toolCallId>:<hash>:<n>`), so an
 * answer is given once and then served from the run's record. An unanswered question is put to the run (a pending
 * elicitation people see in `run.state()` and the events) and the call is held open, polling the run, until
 * `holdUntil`; then the call is aborted with {@link ElicitationPending}.
 */
export function runElicitationHandler(options: {
  run: RunRef;
  toolCallId: string;
  toolName: string;
  holdUntil: number;
  /** Aborted with `ElicitationPending` when the hold ends; the tool's abort signal. */
  abort: AbortController;
}): McpElicitationHandler {
  const asked = new Map<string, number>();
  const handle = Context.current().client.workflow.getHandle(options.run.workflowId, options.run.runId);
  return async (request, { signal }) => {
    const digest = createHash('sha256')
      .update(JSON.stringify([request.serverName, request.message, request.requestedSchema]))
      .digest('hex')
      .slice(0, 16);
    const n = (asked.get(digest) ?? 0) + 1;
    asked.set(digest, n);
    const id = `${options.toolCallId}:${digest}:${n}`;
    let status = await handle.query(elicitationQuery, id);
    if (status.status === 'answered') return toAnswer(status.record);
    if (status.status === 'unknown') {
      const { serverName, message, requestedSchema } = request;
      await handle.signal(elicitationRequestSignal, {
        id,
        toolCallId: options.toolCallId,
        toolName: options.toolName,
        serverName,
        message,
        requestedSchema,
      });
    }
    while (Date.now() < options.holdUntil) {
      await sleep(Math.min(POLL_MS, Math.max(0, options.holdUntil - Date.now())), undefined, { signal });
      status = await handle.query(elicitationQuery, id);
      if (status.status === 'answered') return toAnswer(status.record);
    }
    options.abort.abort(new ElicitationPending(id));
    return { action: 'cancel' };
  };
}

function toAnswer(record: ElicitationRecord): McpElicitationAnswer {
  return record.action === 'accept' ? { action: 'accept', content: record.content ?? {} } : { action: record.action };
}
