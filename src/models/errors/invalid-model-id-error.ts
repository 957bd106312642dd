const MARKER = Symbol.for('durable-agent.error.InvalidModelIdError');

/** A model string is not of the form `provider/model` (for example `gpt-4o` without `openai/`). */
export class InvalidModelIdError extends Error {
  // A registry-wide symbol rather than `instanceof`: two copies of this package still recognise each other's errors.
  private readonly [MARKER] = true;
  /** The string that could not be parsed. */
  readonly modelRef: string;

  constructor(modelRef: string) {
    super(
      `Invalid model '${modelRef}': expected 'provider/model', for example 'openai/gpt-4o-mini' or 'offline/demo'.`,
    );
    this.name = 'InvalidModelIdError';
    this.modelRef = modelRef;
  }
}

/** True for an {@link InvalidModelIdError} from any copy of this package or realm. */
export function isInvalidModelIdError(value: unknown): value is InvalidModelIdError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
