/**
 * Stable reason codes of the run's refusals, grouped by area (`<Area>.<Reason>`). A refused update rejects with an
 * `ApplicationFailure` whose `type` is one of these, so a client or a UI tells "already answered" from "wrong token"
 * without reading prose. Codes are never renamed or reused; the table in docs/errors.md lists them.
 */
export const REFUSAL_CODES = {
  // Elicitation: answers to MCP questions (`durable-agent.respond-to-elicitation`) and questions tool activities put
  // to the run (`durable-agent.ask-elicitation`).
  /** The answer names no question the run waits for. */
  ElicitationUnknownQuestion: 'Elicitation.UnknownQuestion',
  /** The answer does not echo the token the pending question shows (`run.state()`, the `elicitation-requested` event). */
  ElicitationTokenMismatch: 'Elicitation.TokenMismatch',
  /** The question was answered already (or expired, answered `cancel`). */
  ElicitationAlreadyAnswered: 'Elicitation.AlreadyAnswered',
  /** The answer does not fit the question's schema, or is malformed. */
  ElicitationInvalidAnswer: 'Elicitation.InvalidAnswer',
  /** A question that is malformed, over the size bounds, or not bound to its content. */
  ElicitationInvalidQuestion: 'Elicitation.InvalidQuestion',
  /** A question for a tool call that is not running an MCP tool now. */
  ElicitationNoRunningCall: 'Elicitation.NoRunningCall',
  /** Too many questions: waiting at once in the run, or recorded by this execution (count or bytes). */
  ElicitationTooManyQuestions: 'Elicitation.TooManyQuestions',
} as const;

/** One of {@link REFUSAL_CODES}. */
export type RefusalCode = (typeof REFUSAL_CODES)[keyof typeof REFUSAL_CODES];
