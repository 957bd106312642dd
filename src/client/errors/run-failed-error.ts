import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.RunFailedError');

/** Codes of the `Area.Reason` form; a failure type of another form (a plain `Error`) becomes `Run.Failed`. */
const AREA_REASON = /^[A-Z][A-Za-z0-9]*\.[A-Z][A-Za-z0-9]*$/;

/** What {@link RunFailedError} is built from. */
export interface RunFailedErrorDetails {
  runId: string;
  /** The deepest failure's message: the reason a person needs. */
  rootMessage: string;
  /** The deepest failure's `type` that carries one (an `ApplicationFailure`'s), when there is one. */
  failureType?: string;
}

/**
 * A run ended failed. Its message is one line naming the run and the root cause (the bottom of the failure's cause
 * chain, e.g. "Unknown agent 'x'" or the model's refusal), where Temporal's `WorkflowFailedError` says only
 * "Workflow execution failed" and nests the reason two or three causes down. That `WorkflowFailedError` is kept
 * as `cause` for the detail. `code` is the failure's `type` when it is an `Area.Reason` code (`FailureType` in
 * `durable-agent/client`, e.g. `Model.BadRequest`), otherwise `Run.Failed`.
 */
export class RunFailedError extends DurableAgentError {
  private readonly [MARKER] = true;
  readonly runId: string;
  /** The failure's own `type` as recorded, whatever its form. */
  readonly failureType: string | undefined;

  constructor(details: RunFailedErrorDetails, options?: { cause?: unknown }) {
    const type = details.failureType;
    super({
      code: type && AREA_REASON.test(type) ? type : 'Run.Failed',
      message:
        `Run '${details.runId}' failed: ${firstLine(details.rootMessage)}` +
        (type ? ` (${type})` : '') +
        ". The full failure is in `cause` and in the run's history (Temporal Web UI).",
      cause: options?.cause,
    });
    this.name = 'RunFailedError';
    this.runId = details.runId;
    this.failureType = type;
  }

  /** True for a {@link RunFailedError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is RunFailedError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}

/** A failure message can span lines (a stack, a server's body): the summary keeps the first, bounded. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0]!.trim().replace(/\.$/, '');
  return line.length > 300 ? `${line.slice(0, 300)}…` : line || 'no message';
}
