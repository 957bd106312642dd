import { DurableAgentError } from '../../errors/durable-agent-error.js';
import type { CallToolRefusal } from '../call-tool-check.js';

const MARKER = Symbol.for('durable-agent.error.CallToolRefusedError');

/**
 * Thrown by the in-process `callTool` when it refuses a call (recursion, a tool outside the pool, a tool not
 * searched yet, invalid arguments, an approval it cannot ask for). The tool pipeline turns it into the error
 * result the model sees, with `reason` and `requestedTool` as fields, and the run goes on.
 */
export class CallToolRefusedError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** Why the call was refused. */
  readonly reason: CallToolRefusal | 'approval-unavailable';
  /**
   * The tool the model asked `callTool` to run, when it named one (not `toolName`: in the error payload that is
   * `callTool` itself).
   */
  readonly requestedTool?: string;

  constructor(reason: CallToolRefusal | 'approval-unavailable', message: string, requestedTool?: string) {
    super({ code: 'Routing.CallToolRefused', message });
    this.name = 'CallToolRefusedError';
    this.reason = reason;
    if (requestedTool !== undefined) this.requestedTool = requestedTool;
  }

  /** True for a {@link CallToolRefusedError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is CallToolRefusedError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
