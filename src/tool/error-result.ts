import { getGlobalLogger } from '../logger.js';
import type { JsonValue } from '../protocol/json.js';
import { redactSecrets, redactSecretsDeep } from '../secrets/redact-secrets.js';
import { toJsonValue } from './json-safe.js';

/** The part of a failed tool call's error the model sees about one error of the `cause` chain. */
// Type aliases rather than interfaces: they are JSON data (assignable to `JsonValue`) as they are.
export type ToolErrorCause = {
  name: string;
  message: string;
  code?: string | number;
  status?: number;
  statusCode?: number;
  cause?: ToolErrorCause;
};

/**
 * What the model sees when a tool call fails (a thrown error or an output that fails its schema). The run goes on
 * and the model can react. Only allow-listed fields of the error are copied: its `code`, HTTP `status` /
 * `statusCode` / `httpStatus`, an MCP `serverName`, a refusal's `reason` and `requestedTool`, validation issues (`validationErrors`, `issues`), the `actualOutput` that failed
 * validation, and a short `cause` chain of the same. Never the stack, `toJSON()`, or anything else an HTTP
 * client hangs on its errors (`config.headers.Authorization`, `request`, `response.headers`): this payload is
 * recorded in workflow history.
 */
export type ToolErrorResult = {
  error: true;
  name: string;
  message: string;
  toolCallId: string;
  toolName: string;
  code?: string | number;
  status?: number;
  statusCode?: number;
  httpStatus?: number;
  validationErrors?: JsonValue;
  issues?: JsonValue;
  actualOutput?: JsonValue;
  /** Which MCP server the failing tool belongs to (MCP tools). */
  serverName?: string;
  /** Why it was refused, when the error says (authorization errors, callTool refusals). */
  reason?: string;
  /** The tool `callTool` was asked to run, when it refused (`toolName` is `callTool` itself). */
  requestedTool?: string;
  cause?: ToolErrorCause;
};

// A cause chain longer than this is cut: enough to see the root cause, bounded whatever was thrown.
const MAX_CAUSE_DEPTH = 3;
const STATUS_FIELDS = ['status', 'statusCode'] as const;
const DATA_FIELDS = ['validationErrors', 'issues', 'actualOutput'] as const;
const TEXT_FIELDS = ['serverName', 'reason', 'requestedTool'] as const;
const MAX_TEXT_FIELD_CHARS = 2_000;

/** Builds the model-visible payload of a failed tool call. Never throws, whatever was thrown. */
export function buildToolErrorResult(error: unknown, toolCallId: string, toolName: string): ToolErrorResult {
  const { name, message, ...fields } = describe(error);
  const result: ToolErrorResult = { error: true, name, message, toolCallId, toolName, ...fields };
  if (isObject(error)) {
    const status = (error as { httpStatus?: unknown }).httpStatus;
    if (isStatus(status)) result.httpStatus = status;
    for (const key of DATA_FIELDS) {
      const value = Object.hasOwn(error, key) ? toJsonValue((error as Record<string, unknown>)[key]) : undefined;
      if (value !== undefined) result[key] = redactSecretsDeep(value);
    }
    for (const key of TEXT_FIELDS) {
      const value = Object.hasOwn(error, key) ? (error as Record<string, unknown>)[key] : undefined;
      if (typeof value === 'string') result[key] = redactSecrets(value.slice(0, MAX_TEXT_FIELD_CHARS));
    }
    const cause = describeCause((error as { cause?: unknown }).cause, 1);
    if (cause) result.cause = cause;
  }
  // The stack helps whoever runs the worker, not the model, and does not belong in history: it goes to the log.
  const stack = error instanceof Error ? error.stack : undefined;
  if (stack) getGlobalLogger().debug(`Tool '${toolName}' failed (call ${toolCallId})`, { stack: redactSecrets(stack) });
  return result;
}

function describeCause(cause: unknown, depth: number): ToolErrorCause | undefined {
  if (cause === undefined || cause === null || depth > MAX_CAUSE_DEPTH) return undefined;
  const described: ToolErrorCause = describe(cause);
  const next = isObject(cause) ? describeCause((cause as { cause?: unknown }).cause, depth + 1) : undefined;
  if (next) described.cause = next;
  return described;
}

/** Name, message, code and status of anything thrown, secrets redacted. */
function describe(thrown: unknown): Omit<ToolErrorCause, 'cause'> {
  let name = 'Error';
  let message: string;
  if (thrown instanceof Error) {
    name = thrown.name;
    message = thrown.message;
  } else if (isObject(thrown) && typeof (thrown as { message?: unknown }).message === 'string') {
    const fields = thrown as { name?: unknown; message: string };
    name = typeof fields.name === 'string' ? fields.name : 'Error';
    message = fields.message;
  } else if (isObject(thrown)) {
    // An object thrown without a message: its own code and status below are all that is safe to say about it.
    message = `The tool threw a value without a message (${thrown.constructor?.name ?? 'no prototype'}), not an Error.`;
  } else {
    message = String(thrown);
  }
  const out: Omit<ToolErrorCause, 'cause'> = { name: redactSecrets(name), message: redactSecrets(message) };
  if (!isObject(thrown)) return out;
  const { code } = thrown as { code?: unknown };
  if ((typeof code === 'string' && code.length <= 200) || (typeof code === 'number' && Number.isFinite(code))) {
    out.code = typeof code === 'string' ? redactSecrets(code) : code;
  }
  for (const key of STATUS_FIELDS) {
    const value = (thrown as Record<string, unknown>)[key];
    if (isStatus(value)) out[key] = value;
  }
  return out;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function isStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 1000;
}
