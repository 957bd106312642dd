import { DurableAgentError } from '../../errors/durable-agent-error.js';
import { FailureType } from '../../protocol/constants.js';

const MARKER = Symbol.for('durable-agent.error.CheckpointTooLargeError');

/**
 * A streaming tool yielded a value too large to checkpoint. Each yield is heartbeated to Temporal as the tool's
 * checkpoint (a retried attempt resumes from it), and a heartbeat is one payload under Temporal's 2 MB limit. The
 * model gets this as the tool's error result; the run goes on.
 */
export class CheckpointTooLargeError extends DurableAgentError {
  private readonly [MARKER] = true;
  declare readonly code: typeof FailureType.ToolCheckpointTooLarge;

  constructor(
    readonly toolName: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super({
      code: FailureType.ToolCheckpointTooLarge,
      message:
        `Tool '${toolName}' yielded a checkpoint of ${bytes} bytes, over the ${limit}-byte limit for checkpoints ` +
        '(each yield of a streaming tool is heartbeated to Temporal so a retried attempt can resume from it). ' +
        'Yield small progress values, such as a count or a cursor, and keep large data out of the yields.',
    });
    this.name = 'CheckpointTooLargeError';
  }

  /** True for a {@link CheckpointTooLargeError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is CheckpointTooLargeError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
