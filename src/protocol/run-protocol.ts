// Which version of the run protocol a run follows: decided once per execution by the workflow (workflows/protocol.ts)
// and recorded in the run's memo, where a client reads it with the `describe` it makes anyway. Workflow-safe.

/**
 * The one patch id of 0.4.0: a history with its marker follows protocol 4 in every respect (the run's stream,
 * streamed model output, questions asked by update, the final record, budgeted MCP listings, held answers, the inbox).
 * From 0.4.0 on, a release that changes the loop in a way that needs versioning adds one such id (see
 * docs/upgrading.md). Never reuse or rename it.
 */
export const RUN_PROTOCOL_PATCH = 'durable-agent.v0.4';

/**
 * The protocol new runs follow. Earlier ones: 1 (v0.1.0), 2 (v0.2.0 and v0.3.0, which differ only in what single calls
 * carry). A run started on an earlier release keeps its protocol across continue-as-new.
 */
export const CURRENT_RUN_PROTOCOL = 4;

/** The oldest protocol this code still runs. */
export const OLDEST_RUN_PROTOCOL = 1;

/**
 * The memo key under which an execution records its protocol in its first workflow task. Executions of v0.1.0–v0.3.0
 * code never wrote it: a memo without it is a legacy run's (which has no stream).
 */
export const RUN_PROTOCOL_MEMO_KEY = 'durable-agent.protocol';

/** True for a protocol number this code can run. */
export function isRunProtocol(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= OLDEST_RUN_PROTOCOL &&
    value <= CURRENT_RUN_PROTOCOL
  );
}
