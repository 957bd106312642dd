import type { JsonValue } from '../protocol/json.js';
import { toJsonValue } from './json-safe.js';

/**
 * What the model sees when a tool call fails (a thrown error or an output that fails its schema). The run goes on
 * and the model can react. Besides the fixed keys it carries the error's own properties (e.g. `code`,
 * `validationErrors`, `actualOutput`) as JSON data.
 */
export interface ToolErrorResult {
  error: true;
  name: string;
  message: string;
  stack?: string;
  toolCallId: string;
  toolName: string;
  cause?: JsonValue;
  [key: string]: JsonValue | undefined;
}

// Keys the payload sets itself; an error's own properties of the same name must not overwrite them.
const RESERVED = new Set(['error', 'name', 'message', 'stack', 'cause', 'toolCallId', 'toolName']);

/** Builds the model-visible payload of a failed tool call. Never throws, whatever was thrown. */
export function buildToolErrorResult(error: unknown, toolCallId: string, toolName: string): ToolErrorResult {
  const { name, message, stack } = describeThrown(error);
  const result: ToolErrorResult = { error: true, name, message, stack, toolCallId, toolName };
  if (stack === undefined) delete result.stack;
  if (typeof error === 'object' && error !== null) {
    for (const [key, value] of Object.entries(error)) {
      if (RESERVED.has(key) || value === undefined || typeof value === 'function') continue;
      const converted = toJsonValue(value);
      if (converted !== undefined) result[key] = converted;
    }
    const cause = (error as { cause?: unknown }).cause;
    if (cause !== undefined) {
      const converted = toJsonValue(cause);
      if (converted !== undefined) result.cause = converted;
    }
  }
  return result;
}

function describeThrown(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  if (typeof error === 'object' && error !== null) {
    const { name, message } = error as { name?: unknown; message?: unknown };
    if (typeof message === 'string') return { name: typeof name === 'string' ? name : 'Error', message };
    return { name: 'Error', message: JSON.stringify(toJsonValue(error)) };
  }
  return { name: 'Error', message: String(error) };
}
