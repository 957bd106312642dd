import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.InvalidModelIdError');

/** A model string is not of the form `provider/model` (for example `gpt-4o` without `openai/`). */
export class InvalidModelIdError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** The string that could not be parsed. */
  readonly modelRef: string;

  constructor(modelRef: string) {
    super({
      code: 'Model.InvalidId',
      message: `Invalid model '${modelRef}': expected 'provider/model', for example 'openai/gpt-4o-mini' or 'offline/demo'.`,
    });
    this.name = 'InvalidModelIdError';
    this.modelRef = modelRef;
  }

  /** True for a {@link InvalidModelIdError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is InvalidModelIdError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
