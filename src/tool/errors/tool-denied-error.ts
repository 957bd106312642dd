import { DurableAgentError } from '../../errors/durable-agent-error.js';
import { ClientHTTPError } from './client-http-error.js';

const MARKER = Symbol.for('durable-agent.error.ToolDeniedError');

/** Well-known denial codes; any other string is allowed too. */
export type ToolDeniedCode =
  | 'TOOL_ERROR'
  | 'TOOL_FORBIDDEN'
  | 'TOOL_PLAN_REQUIRED'
  | 'TOOL_QUOTA_EXCEEDED'
  | (string & {});

/** Constructor options of {@link ToolDeniedError}. */
export interface ToolDeniedErrorOptions {
  toolName: string;
  message: string;
  /** Defaults to `TOOL_FORBIDDEN`. */
  code?: ToolDeniedCode;
  /** Defaults to 403. */
  httpStatus?: number;
}

/**
 * Thrown from a tool's `execute` or from a tool/agent hook to stop the whole run (not just the tool call): the
 * model is not called again and the run ends with this error, `code` and `httpStatus` intact. To let the model
 * recover instead, throw an ordinary `Error`.
 *
 * Unlike VoltAgent, `name` is `'ToolDeniedError'` (VoltAgent puts the tool name there); the tool name is in
 * `toolName`.
 */
export class ToolDeniedError extends ClientHTTPError {
  private readonly [MARKER] = true;
  /** The tool whose call was denied. */
  readonly toolName: string;

  constructor({ toolName, message, code = 'TOOL_FORBIDDEN', httpStatus = 403 }: ToolDeniedErrorOptions) {
    super('ToolDeniedError', httpStatus, code, message);
    this.toolName = toolName;
  }

  /** The error as plain data, so it can cross the activity boundary and be rebuilt with {@link fromJSON}. */
  toJSON(): { toolName: string; message: string; code: string; httpStatus: number } {
    return { toolName: this.toolName, message: this.message, code: this.code, httpStatus: this.httpStatus };
  }

  /** Rebuilds an error from {@link toJSON} data (for example on the client when a run ended with a denial). */
  static fromJSON(data: { toolName: string; message: string; code: string; httpStatus: number }): ToolDeniedError {
    return new ToolDeniedError(data);
  }

  /** True for a {@link ToolDeniedError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is ToolDeniedError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
