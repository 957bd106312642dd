import { DurableAgentError } from '../../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.ScriptedModelExhaustedError');

/**
 * A {@link ScriptedLanguageModel} received a call its script has no step for. It is loud on purpose: an extra
 * model call in a test means the agent loop did something the test did not expect, and a silent default reply
 * would hide it.
 */
export class ScriptedModelExhaustedError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** Zero-based index of the call on this model instance. */
  readonly callIndex: number;
  /** Zero-based index of the step the call needed (equal to `callIndex` with sequential selection). */
  readonly stepIndex: number;
  /** Number of steps in the script. */
  readonly stepCount: number;

  constructor({
    modelId,
    callIndex,
    stepIndex = callIndex,
    stepCount,
    lastUserText,
  }: {
    modelId: string;
    callIndex: number;
    stepIndex?: number;
    stepCount: number;
    lastUserText: string;
  }) {
    const preview = lastUserText.length > 120 ? `${lastUserText.slice(0, 117)}...` : lastUserText;
    super({
      code: 'Model.ScriptExhausted',
      message:
        `ScriptedLanguageModel '${modelId}' is exhausted: model call #${callIndex + 1} needs step #${stepIndex + 1} ` +
        `but the script has ${stepCount}. The agent made more model calls than the test expected; add a step or ` +
        `find the extra call. Last user message: ${JSON.stringify(preview)}`,
    });
    this.name = 'ScriptedModelExhaustedError';
    this.callIndex = callIndex;
    this.stepIndex = stepIndex;
    this.stepCount = stepCount;
  }

  /** True for a {@link ScriptedModelExhaustedError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is ScriptedModelExhaustedError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
