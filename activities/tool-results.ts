import { randomUUID } from 'node:crypto';
import { getGlobalLogger } from '../src/logger.js';
import { FailureType, jsonBytes, type ExecuteToolResult, type JsonValue } from '../src/protocol/index.js';
import type { ToolDeniedError } from '../src/tool/errors/tool-denied-error.js';
import { toJsonValue } from '../src/tool/json-safe.js';

/** A result the run records for the model to read: the tool's output or its error. */
export type RecordedToolResult = Extract<ExecuteToolResult, { kind: 'ok' | 'error' }>;

/**
 * Tool outputs are recorded in history as JSON: `toJsonValue` keeps what JSON can carry (and turns a circular
 * reference into a marker instead of failing the activity).
 */
export function toJson(value: unknown): JsonValue {
  return toJsonValue(value) ?? null;
}

/** An error result the model reads, naming the tool. */
export function toolErrorResult(toolName: string, message: string): RecordedToolResult {
  return { version: 1, kind: 'error', output: { error: true, message, toolName }, outputId: randomUUID() };
}

/** A tool's `ToolDeniedError` as data: it ends the run with its code and HTTP status. */
export function deniedResult(toolName: string, error: ToolDeniedError): ExecuteToolResult {
  return {
    version: 1,
    kind: 'denied',
    error: { toolName, message: error.message, code: String(error.code), httpStatus: error.httpStatus },
  };
}

/**
 * Flags an output that would exceed Temporal's payload limits before it is recorded. The model gets an error
 * naming the tool and the size; the run goes on.
 */
export function sizeChecked(toolName: string, maxBytes: number, result: RecordedToolResult): RecordedToolResult {
  const bytes = jsonBytes(result);
  if (bytes <= maxBytes) return result;
  const message =
    `Tool '${toolName}' returned ${bytes} bytes, over the ${maxBytes}-byte limit for a recorded tool result. ` +
    'Return a smaller output (a summary, a page of results, or a reference such as a file path or URL).';
  getGlobalLogger().warn(message);
  return {
    version: 1,
    outputId: result.outputId,
    kind: 'error',
    output: { error: true, name: 'ToolOutputTooLargeError', message, toolName, code: FailureType.ToolOutputTooLarge },
  };
}
