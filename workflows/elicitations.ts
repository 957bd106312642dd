import {
  ELICITATION_ANSWER_LIMITS,
  checkElicitationResponse,
  jsonBytes,
  refusedPayloadOf,
  type ElicitationRecord,
  type ElicitationRequest,
  type ElicitationResponse,
  type ElicitationStatus,
  type PendingElicitation,
} from '../src/protocol/index.js';

/** Bounds on what a tool activity may ask the run (it is a worker, but the server behind it is untrusted). */
const REQUEST_LIMITS = { pending: 64, bytes: 48 * 1024 } as const;

/**
 * MCP questions a run's tool calls put to people, and their answers. Pure state: the workflow waits with `condition`
 * on {@link ElicitationBook.isAnswered}. A question is asked once (a repeated request with the same id is the same
 * question); an answer applies once and is kept, so a call re-issued after a worker died, or after the activity
 * stopped holding it open, is answered from the record.
 */
export class ElicitationBook {
  private readonly pending = new Map<string, PendingElicitation>();
  private readonly answers = new Map<string, ElicitationRecord>();

  constructor(carried: ElicitationRecord[] = []) {
    for (const record of carried) this.answers.set(record.id, record);
  }

  /** Why a request from a tool activity cannot be taken, or undefined. */
  malformedRequest(request: ElicitationRequest | null | undefined): string | undefined {
    if (refusedPayloadOf(request)) return "the worker's payload codec refused it";
    if (typeof request?.id !== 'string' || request.id === '') return 'id must be a non-empty string';
    for (const key of ['toolCallId', 'toolName', 'serverName', 'message'] as const) {
      if (typeof request[key] !== 'string') return `${key} must be a string`;
    }
    if (typeof request.requestedSchema !== 'object' || request.requestedSchema === null) {
      return 'requestedSchema must be an object';
    }
    if (jsonBytes(request) > REQUEST_LIMITS.bytes) return `a request is at most ${REQUEST_LIMITS.bytes} bytes`;
    if (!this.pending.has(request.id) && this.pending.size >= REQUEST_LIMITS.pending) {
      return `at most ${REQUEST_LIMITS.pending} questions wait at once`;
    }
    return undefined;
  }

  /** Records a question; returns it when new, undefined when it was already asked or answered. */
  request(request: ElicitationRequest, now: Date, timeoutMs: number | undefined): PendingElicitation | undefined {
    if (this.pending.has(request.id) || this.answers.has(request.id)) return undefined;
    const pending: PendingElicitation = {
      id: request.id,
      toolCallId: request.toolCallId,
      toolName: request.toolName,
      serverName: request.serverName,
      message: request.message,
      requestedSchema: request.requestedSchema,
      requestedAt: now.toISOString(),
      ...(timeoutMs !== undefined ? { expiresAt: new Date(now.getTime() + timeoutMs).toISOString() } : {}),
    };
    this.pending.set(request.id, pending);
    return pending;
  }

  /** Why a client's answer must be rejected (update validator), or undefined. Touches nothing. */
  rejection(response: ElicitationResponse | null | undefined): string | undefined {
    const refused = refusedPayloadOf(response);
    if (refused) return `The worker's payload codec refused the answer (${refused.code}): ${refused.message}`;
    if (typeof response?.id !== 'string') return 'id must be a string.';
    if (this.answers.has(response.id)) return `Elicitation '${response.id}' was already answered.`;
    const pending = this.pending.get(response.id);
    if (!pending) {
      const waiting = [...this.pending.keys()];
      return waiting.length === 0
        ? `The run is not waiting for any elicitation ('${response.id}' is unknown).`
        : `No pending elicitation '${response.id}'. Pending: ${waiting.join(', ')}.`;
    }
    if (response.responder !== undefined && typeof response.responder !== 'string')
      return 'responder must be a string.';
    if ((response.responder?.length ?? 0) > ELICITATION_ANSWER_LIMITS.responderChars) {
      return `responder must be at most ${ELICITATION_ANSWER_LIMITS.responderChars} characters.`;
    }
    const check = checkElicitationResponse(pending.requestedSchema, response);
    return check.ok ? undefined : `The answer does not fit the question: ${check.problem}.`;
  }

  /** Applies a client's answer (signal or validated update). Returns false when it was ignored. */
  answer(response: ElicitationResponse, now: Date): boolean {
    if (this.rejection(response) !== undefined) return false;
    const pending = this.pending.get(response.id)!;
    const check = checkElicitationResponse(pending.requestedSchema, response);
    this.close(pending, now, {
      action: response.action,
      ...(check.ok && check.content ? { content: check.content } : {}),
      ...(response.responder !== undefined ? { responder: response.responder } : {}),
    });
    return true;
  }

  /** Nobody answered in time: the server is told `cancel`. */
  expire(id: string, now: Date): ElicitationRecord | undefined {
    const pending = this.pending.get(id);
    return pending ? this.close(pending, now, { action: 'cancel', timedOut: true }) : undefined;
  }

  isAnswered(id: string): boolean {
    return this.answers.has(id);
  }

  recordFor(id: string): ElicitationRecord | undefined {
    return this.answers.get(id);
  }

  /** What a tool activity learns about one of its questions. */
  status(id: string): ElicitationStatus {
    const record = this.answers.get(id);
    if (record) return { status: 'answered', record };
    return this.pending.has(id) ? { status: 'pending' } : { status: 'unknown' };
  }

  list(): PendingElicitation[] {
    return [...this.pending.values()];
  }

  /** Answers kept for re-issued calls, to carry over continue-as-new. */
  records(): ElicitationRecord[] {
    return [...this.answers.values()];
  }

  /** The run ended: nothing waits any more. */
  abandon(): void {
    this.pending.clear();
  }

  private close(
    pending: PendingElicitation,
    now: Date,
    answer: Pick<ElicitationRecord, 'action' | 'content' | 'responder' | 'timedOut'>,
  ): ElicitationRecord {
    this.pending.delete(pending.id);
    const record: ElicitationRecord = {
      id: pending.id,
      ...answer,
      requestedAt: pending.requestedAt,
      answeredAt: now.toISOString(),
    };
    this.answers.set(pending.id, record);
    return record;
  }
}
