import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { jsonBytes } from './bytes.js';
import type { JsonObject, JsonValue } from './json.js';

/** An MCP server's question to a person during a tool call, as the run records it. */
export interface ElicitationRequest {
  /** Stable per question of a tool call: a re-issued call that asks the same question gets the same id. */
  id: string;
  toolCallId: string;
  toolName: string;
  serverName: string;
  /** What to ask (bounded, secrets removed by the MCP layer). */
  message: string;
  /** A flat JSON Schema object of the answer's fields: strings, numbers, booleans, enums, lists of enum strings. */
  requestedSchema: JsonObject;
}

/** A question waiting for an answer, as `run.state()` lists it. */
export interface PendingElicitation extends ElicitationRequest {
  requestedAt: string;
  /** When it is answered `cancel` for lack of an answer (ISO), if the agent has an elicitation timeout. */
  expiresAt?: string;
  /** What an answer must echo (see {@link ElicitationResponse.token}). */
  token?: string;
}

/**
 * A question a tool activity puts to the run (update `durable-agent.ask-elicitation`): the run records it once per
 * id, then holds the update until the question is answered or `holdMs` passes.
 */
export interface ElicitationAsk extends ElicitationRequest {
  /** How long the run may hold the update waiting for the answer (capped at `ELICITATION_LIMITS.maxHoldMs`). */
  holdMs: number;
}

/**
 * The run's reply to an {@link ElicitationAsk}: the recorded answer, or `pending` (nobody answered while the update
 * was held: the activity ends the call as `elicitation-pending`, and the run re-issues it once the answer is in).
 */
export type ElicitationAskOutcome = { kind: 'answered'; record: ElicitationRecord } | { kind: 'pending' };

/** Content of an accepted answer: field name to a primitive value or a list of strings. */
export type ElicitationContent = Record<string, string | number | boolean | string[]>;

/** An answer as a client sends it (`run.respondToElicitation`). */
export interface ElicitationResponse {
  id: string;
  action: 'accept' | 'decline' | 'cancel';
  /** Required with `accept`: it must match the request's schema. Never with `decline` or `cancel`. */
  content?: ElicitationContent;
  /** Who answered, as claimed. */
  responder?: string;
  /**
   * The pending question's token (`run.state().pendingElicitations[].token`, the `elicitation-requested` event): only
   * what the run recorded reveals it, so an answer is given to the question a person saw. Questions recorded before
   * v0.4.0 have none.
   */
  token?: string;
  /**
   * The responder is not the run's user (an inbox's reviewer): refuse the answer (`Elicitation.NotAuthorized`) unless
   * the agent's `authorizeDecision` hook allows it (runs on protocol 4, since 0.4.0). Updates only.
   */
  requireAuthorization?: boolean;
  /** Evidence of the responder's identity for the agent's `authorizeDecision` hook. Stored in history: no secrets. */
  identity?: JsonValue;
}

/**
 * The `toolName` of the request the agent's `authorizeDecision` hook is shown for an MCP answer from someone other
 * than the run's user (its `args`: `questionId`, `serverName`, `toolName`, `message`).
 */
export const ELICITATION_REQUEST_TOOL_NAME = 'mcp.elicitation';

/** An answer as the run recorded it: what the server is given, now or when the call is re-issued. */
export interface ElicitationRecord {
  id: string;
  action: 'accept' | 'decline' | 'cancel';
  content?: ElicitationContent;
  responder?: string;
  /** Set when nobody answered in time: the server is told `cancel`. */
  timedOut?: boolean;
  requestedAt: string;
  answeredAt: string;
}

/** What a tool activity learns when it asks the run about one of its questions. */
export type ElicitationStatus =
  | { status: 'unknown' }
  | { status: 'pending' }
  | { status: 'answered'; record: ElicitationRecord };

/**
 * The one set of bounds on MCP questions and answers, shared by the MCP layer (which answers `cancel` in the worker
 * for anything over them) and the run (which refuses what it cannot keep). Sizes are UTF-8 bytes of the JSON text.
 */
export const ELICITATION_LIMITS = {
  /** Longer messages are cut by the MCP layer. */
  messageChars: 4000,
  /** A larger requested schema is answered `cancel` without asking anyone. */
  schemaBytes: 24 * 1024,
  /** A recorded question (id, names, message, schema) is at most this; the two bounds above keep it under. */
  questionBytes: 48 * 1024,
  /** Accepted content (it is recorded in history). */
  contentBytes: 64 * 1024,
  /** A claimed responder name. */
  responderChars: 200,
  /** Questions waiting for an answer in one run at once. */
  waitingPerRun: 64,
  /** Questions one tool call (all its attempts on one worker) may put to the run; later ones are answered `cancel`. */
  questionsPerCall: 16,
  /** Bytes of the questions one tool call may put to the run. */
  bytesPerCall: 128 * 1024,
  /** Questions one run execution records (continue-as-new starts a new count). */
  questionsPerExecution: 256,
  /** Bytes of the questions one run execution records. */
  bytesPerExecution: 2 * 1024 * 1024,
  /** Longest time the run holds an activity's question open before answering `pending`. */
  maxHoldMs: 10 * 60_000,
} as const;

/**
 * The id of a tool call's `n`-th question with this content: `<toolCallId>:<hash>:<n>`, where the hash is the first
 * 16 hex digits of the SHA-256 of `[serverName, message, requestedSchema]` as JSON. A re-issued call asking the same
 * thing again gets the same id (so it is answered from the record), and the run recomputes it to bind an id to its
 * content: a question cannot be recorded under another question's id.
 */
export function elicitationId(
  request: Pick<ElicitationRequest, 'toolCallId' | 'serverName' | 'message' | 'requestedSchema'>,
  n: number,
): string {
  const content = JSON.stringify([request.serverName, request.message, request.requestedSchema]);
  return `${request.toolCallId}:${bytesToHex(sha256(utf8ToBytes(content))).slice(0, 16)}:${n}`;
}

/** Why the id of a question is not the one its content gives (see {@link elicitationId}), or undefined. */
export function elicitationIdProblem(request: ElicitationRequest): string | undefined {
  const prefix = elicitationId(request, 0).slice(0, -1);
  const n = request.id.startsWith(prefix) ? request.id.slice(prefix.length) : '';
  if (!/^[1-9][0-9]{0,5}$/.test(n)) return `id '${request.id}' is not the id of this question's content`;
  return undefined;
}

/** Bytes of a question as the run records it. */
export function elicitationQuestionBytes(request: ElicitationRequest): number {
  const { id, toolCallId, toolName, serverName, message, requestedSchema } = request;
  return jsonBytes({ id, toolCallId, toolName, serverName, message, requestedSchema });
}
