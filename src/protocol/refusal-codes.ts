// Workflow-safe: no imports. The validators under workflows/ throw these codes as the failure's `type`, and the
// client hands them to the caller as `RunRequestRejectedError.code`. Keep the object flat, grouped by area, one
// documented entry per line: each area is added by whoever owns it and the groups must merge cleanly.

/**
 * Why a run refused a request sent to it by update (an approval decision, a client-side tool result, an
 * elicitation answer). Stable `Area.Reason` strings: a client, a UI or an HTTP layer switches on them without
 * parsing the message. docs/errors.md lists every code with what to do about it.
 */
export const RefusalCode = {
  // Approval decisions (`run.approve()`, `run.deny()`).
  /** The run is not waiting for a decision on this tool call (unknown id, or not asked yet). */
  ApprovalUnknownCall: 'Approval.UnknownCall',
  /** A decision on this tool call was already received or settled. */
  ApprovalAlreadyDecided: 'Approval.AlreadyDecided',
  /** The decision's token does not match the pending request's: it answers a request the sender did not read. */
  ApprovalTokenMismatch: 'Approval.TokenMismatch',
  /** The agent's `authorizeDecision` hook refused the decider; the request stays pending. */
  ApprovalNotAuthorized: 'Approval.NotAuthorized',

  // Client-side tool results (`run.submitToolResult()`).
  /** No client-side tool call of this id is waiting for a result. */
  ToolResultUnknownCall: 'ToolResult.UnknownCall',
  /** A result for this tool call was already submitted. */
  ToolResultAlreadySubmitted: 'ToolResult.AlreadySubmitted',

  // The run itself.
  /** The run has completed, failed, been cancelled or terminated: it accepts no request. */
  RunEnded: 'Run.Ended',
  /** The run refused the request with a reason this client does not know (a newer worker); read the message. */
  RunRefused: 'Run.Refused',

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
  /**
   * An answer from someone other than the run's user that the agent's `authorizeDecision` hook refused, or that the
   * run cannot check (no hook, or a run started before such answers were checked).
   */
  ElicitationNotAuthorized: 'Elicitation.NotAuthorized',

  // The HTTP handler (`durable-agent/http`): what it refuses before anything reaches a run.
  /** The request carries no identity `authenticate` accepts. */
  HttpUnauthenticated: 'Http.Unauthenticated',
  /** No chat, run or route of this user with this id (another user's run is not found either). */
  HttpNotFound: 'Http.NotFound',
  /** Only the run's own user may do this (give a client-side tool its result), not a reviewer. */
  HttpNotRunUser: 'Http.NotRunUser',
  /** A browser request from an origin the handler does not allow (cross-site request with the user's cookies). */
  HttpOriginRefused: 'Http.OriginRefused',
  /** The route exists but not with this HTTP method. */
  HttpMethodNotAllowed: 'Http.MethodNotAllowed',
  /** The chat's turn is still running: wait for it, resume its stream, or stop it before sending a new message. */
  HttpTurnInProgress: 'Http.TurnInProgress',
  /** A request the handler does not support (a trigger, a message shape). */
  HttpUnsupported: 'Http.Unsupported',
  /** No worker answered the run in time; the request may be sent again. */
  HttpUnavailable: 'Http.Unavailable',
  /** An unexpected failure; its details are in the server's log, never in the response. */
  HttpInternal: 'Http.Internal',
  /** The body is not sent as `application/json`. */
  HttpWrongContentType: 'Http.WrongContentType',
  /** `authenticate` vouched for a user id runs cannot record (over 200 characters): fix the app's user ids. */
  HttpInvalidUser: 'Http.InvalidUser',
  /** Too many event streams open: this user's (`maxStreamsPerUser`) or the handler's (`maxStreams`). */
  HttpTooManyStreams: 'Http.TooManyStreams',
  /** The event stream was ended because its client read too slowly (`streamBufferBytes`, `slowStreamMs`). */
  HttpSlowReader: 'Http.SlowReader',
  // Conversations (`conversation.send()`): a message refused before it is queued.
  /** The conversation has ended (`end()`, or it completed, failed or was terminated): start another id. */
  ConversationEnded: 'Conversation.Ended',
  /** Too many messages wait for their turn: wait for the running turn, or send with `interrupt: true`. */
  ConversationQueueFull: 'Conversation.QueueFull',
  /** The message is over the conversation's `maxMessageBytes` (UTF-8 bytes of its JSON). */
  ConversationMessageTooLarge: 'Conversation.MessageTooLarge',
  /** The sender is not the conversation's user and the agent's `authorizeDecision` did not allow them. */
  ConversationNotAuthorized: 'Conversation.NotAuthorized',

  // What any request carries.
  /** A field is over its bound (docs/limits.md): a reason, an approver, identity evidence, a tool result. */
  InputTooLarge: 'Input.TooLarge',
  /** The request is not well-formed: a missing or mistyped field. */
  InputMalformed: 'Input.Malformed',
  /** The worker's payload codec could not decode the request (unknown key, plaintext refused, tampered). */
  InputUndecodable: 'Input.Undecodable',
} as const;

/** One of the {@link RefusalCode} strings. */
export type RefusalCode = (typeof RefusalCode)[keyof typeof RefusalCode];

/** A validator's answer: which rule refused the request, and a message for a person. */
export interface Refusal {
  code: RefusalCode;
  message: string;
}

/** Every refusal code, for a client checking whether a failure's `type` is one of them. */
export const REFUSAL_CODES: ReadonlySet<string> = new Set(Object.values(RefusalCode));
