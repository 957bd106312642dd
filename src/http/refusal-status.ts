import { RefusalCode } from '../protocol/refusal-codes.js';

/**
 * The HTTP status of every refusal code, for every route of `durable-agent/http`: the same refusal is the same status
 * whether the handler or the run refused it. A page tells a forged or stale request (403: it names a request the run
 * never made, or carries another token) from one that came too late (409: decided, answered, ended) and from a bad
 * answer (422), without reading the message. docs/web.md lists the table.
 */
export const REFUSAL_STATUS: Readonly<Record<RefusalCode, number>> = {
  [RefusalCode.ApprovalUnknownCall]: 403,
  [RefusalCode.ApprovalAlreadyDecided]: 409,
  [RefusalCode.ApprovalTokenMismatch]: 403,
  [RefusalCode.ApprovalNotAuthorized]: 403,
  [RefusalCode.ToolResultUnknownCall]: 403,
  [RefusalCode.ToolResultAlreadySubmitted]: 409,
  [RefusalCode.RunEnded]: 409,
  [RefusalCode.RunRefused]: 409,
  [RefusalCode.ElicitationUnknownQuestion]: 403,
  [RefusalCode.ElicitationTokenMismatch]: 403,
  [RefusalCode.ElicitationAlreadyAnswered]: 409,
  [RefusalCode.ElicitationInvalidAnswer]: 422,
  [RefusalCode.ElicitationInvalidQuestion]: 422,
  [RefusalCode.ElicitationNoRunningCall]: 409,
  [RefusalCode.ElicitationTooManyQuestions]: 409,
  [RefusalCode.ElicitationNotAuthorized]: 403,
  [RefusalCode.HttpUnauthenticated]: 401,
  [RefusalCode.HttpNotFound]: 404,
  [RefusalCode.HttpNotRunUser]: 403,
  [RefusalCode.HttpOriginRefused]: 403,
  [RefusalCode.HttpMethodNotAllowed]: 405,
  [RefusalCode.HttpTurnInProgress]: 409,
  [RefusalCode.HttpUnsupported]: 400,
  [RefusalCode.HttpUnavailable]: 503,
  [RefusalCode.HttpInternal]: 500,
  [RefusalCode.HttpWrongContentType]: 415,
  [RefusalCode.HttpInvalidUser]: 400,
  [RefusalCode.HttpTooManyStreams]: 429,
  [RefusalCode.HttpSlowReader]: 429,
  [RefusalCode.ConversationEnded]: 409,
  [RefusalCode.ConversationQueueFull]: 409,
  [RefusalCode.ConversationMessageTooLarge]: 413,
  [RefusalCode.ConversationNotAuthorized]: 403,
  [RefusalCode.InputTooLarge]: 413,
  [RefusalCode.InputMalformed]: 400,
  [RefusalCode.InputUndecodable]: 400,
};

/** The status of `code`; 409 for a code this version does not know (a newer worker's refusal of the request). */
export function refusalStatus(code: string): number {
  return Object.hasOwn(REFUSAL_STATUS, code) ? REFUSAL_STATUS[code as RefusalCode] : 409;
}
