import {
  ELICITATION_LIMITS,
  RefusalCode,
  checkElicitationResponse,
  elicitationIdProblem,
  elicitationQuestionBytes,
  jsonBytes,
  refusedPayloadOf,
  type ElicitationRecord,
  type ElicitationRequest,
  type ElicitationResponse,
  type ElicitationStatus,
  type PendingElicitation,
  type Refusal,
} from '../src/protocol/index.js';

/** Bounds on what a tool activity may ask the run (it is a worker, but the server behind it is untrusted). */
const REQUEST_LIMITS = { pending: ELICITATION_LIMITS.waitingPerRun, bytes: ELICITATION_LIMITS.questionBytes } as const;

/**
 * MCP questions a run's tool calls put to people, and their answers. Pure state: the workflow waits with `condition`
 * on {@link ElicitationBook.isAnswered}. A question is asked once (a repeated request with the same id is the same
 * question); an answer applies once and is kept, so a call re-issued after a worker died, or after the activity
 * stopped holding it open, is answered from the record.
 */
export class ElicitationBook {
  private readonly pending = new Map<string, PendingElicitation>();
  private readonly answers = new Map<string, ElicitationRecord>();
  /** Questions and their bytes recorded by this execution (bounded: see `ELICITATION_LIMITS`). */
  private recorded = { questions: 0, bytes: 0 };

  constructor(carried: ElicitationRecord[] = []) {
    for (const record of carried) this.answers.set(record.id, record);
  }

  /** Why a request from a tool activity (v0.3.0 signal) cannot be taken, or undefined. */
  malformedRequest(request: ElicitationRequest | null | undefined): string | undefined {
    const shape = this.shapeProblem(request);
    if (shape) return shape;
    if (jsonBytes(request) > REQUEST_LIMITS.bytes) return `a request is at most ${REQUEST_LIMITS.bytes} bytes`;
    if (!this.pending.has(request!.id) && this.pending.size >= REQUEST_LIMITS.pending) {
      return `at most ${REQUEST_LIMITS.pending} questions wait at once`;
    }
    return undefined;
  }

  private shapeProblem(request: ElicitationRequest | null | undefined): string | undefined {
    if (refusedPayloadOf(request)) return "the worker's payload codec refused it";
    if (typeof request?.id !== 'string' || request.id === '') return 'id must be a non-empty string';
    for (const key of ['toolCallId', 'toolName', 'serverName', 'message'] as const) {
      if (typeof request[key] !== 'string') return `${key} must be a string`;
    }
    if (typeof request.requestedSchema !== 'object' || request.requestedSchema === null) {
      return 'requestedSchema must be an object';
    }
    return undefined;
  }

  /**
   * Why a question a tool activity asks (update `durable-agent.ask-elicitation`, v0.4.0) cannot be taken, or
   * undefined. It must be well formed and within the size bounds, come from the tool call it names while that call
   * runs (`runningToolName`), and carry the id its content gives: a client cannot record a question for a call that
   * is not running, nor under another question's id. A question already recorded is taken again (re-asked).
   */
  askRefusal(request: ElicitationRequest | null | undefined, runningToolName: string | undefined): Refusal | undefined {
    const invalid = (message: string) => ({ code: RefusalCode.ElicitationInvalidQuestion, message });
    const malformed = this.shapeProblem(request);
    if (malformed) return invalid(`The question is malformed: ${malformed}.`);
    const ask = request!;
    if (runningToolName === undefined || runningToolName !== ask.toolName) {
      return {
        code: RefusalCode.ElicitationNoRunningCall,
        message: `Tool call '${ask.toolCallId}' of '${ask.toolName}' is not running: only its MCP call may ask.`,
      };
    }
    const idProblem = elicitationIdProblem(ask);
    if (idProblem) return invalid(`The question is not bound to its content: ${idProblem}.`);
    if (this.pending.has(ask.id) || this.answers.has(ask.id)) return undefined;
    const bytes = elicitationQuestionBytes(ask);
    if (bytes > ELICITATION_LIMITS.questionBytes) {
      return invalid(
        `The question is ${bytes} bytes; the run keeps questions of at most ${ELICITATION_LIMITS.questionBytes}.`,
      );
    }
    const tooMany = (message: string) => ({ code: RefusalCode.ElicitationTooManyQuestions, message });
    if (this.pending.size >= ELICITATION_LIMITS.waitingPerRun) {
      return tooMany(`${ELICITATION_LIMITS.waitingPerRun} questions already wait for an answer in this run.`);
    }
    if (this.recorded.questions >= ELICITATION_LIMITS.questionsPerExecution) {
      return tooMany(`This run has recorded ${ELICITATION_LIMITS.questionsPerExecution} questions, its limit.`);
    }
    if (this.recorded.bytes + bytes > ELICITATION_LIMITS.bytesPerExecution) {
      return tooMany(`This run's questions would exceed ${ELICITATION_LIMITS.bytesPerExecution} bytes, its limit.`);
    }
    return undefined;
  }

  /** Records a question; returns it when new, undefined when it was already asked or answered. */
  request(
    request: ElicitationRequest,
    now: Date,
    timeoutMs: number | undefined,
    token?: string,
  ): PendingElicitation | undefined {
    if (this.pending.has(request.id) || this.answers.has(request.id)) return undefined;
    this.recorded.questions++;
    this.recorded.bytes += elicitationQuestionBytes(request);
    const pending: PendingElicitation = {
      id: request.id,
      toolCallId: request.toolCallId,
      toolName: request.toolName,
      serverName: request.serverName,
      message: request.message,
      requestedSchema: request.requestedSchema,
      requestedAt: now.toISOString(),
      ...(timeoutMs !== undefined ? { expiresAt: new Date(now.getTime() + timeoutMs).toISOString() } : {}),
      ...(token !== undefined ? { token } : {}),
    };
    this.pending.set(request.id, pending);
    return pending;
  }

  /** The waiting question with this id, if any. */
  pendingQuestion(id: string): PendingElicitation | undefined {
    return this.pending.get(id);
  }

  /**
   * The tool call ended (v0.4.0): its questions still waiting are dropped, since no call can use their answers.
   * Returns their ids.
   */
  withdrawCall(toolCallId: string): string[] {
    const ids = [...this.pending.values()].filter((p) => p.toolCallId === toolCallId).map((p) => p.id);
    for (const id of ids) this.pending.delete(id);
    return ids;
  }

  /** True when one of the call's questions waits. */
  waitsFor(toolCallId: string): boolean {
    for (const pending of this.pending.values()) if (pending.toolCallId === toolCallId) return true;
    return false;
  }

  /** Why a client's answer must be rejected (update validator), or undefined. Touches nothing. */
  rejection(response: ElicitationResponse | null | undefined): string | undefined {
    return this.refusal(response)?.message;
  }

  /** {@link rejection} with its code. */
  refusal(response: ElicitationResponse | null | undefined): Refusal | undefined {
    const invalid = (message: string) => ({ code: RefusalCode.ElicitationInvalidAnswer, message });
    const refused = refusedPayloadOf(response);
    if (refused) return invalid(`The worker's payload codec refused the answer (${refused.code}): ${refused.message}`);
    if (typeof response?.id !== 'string') return invalid('id must be a string.');
    if (this.answers.has(response.id)) {
      return {
        code: RefusalCode.ElicitationAlreadyAnswered,
        message: `Elicitation '${response.id}' was already answered.`,
      };
    }
    const pending = this.pending.get(response.id);
    if (!pending) {
      const waiting = [...this.pending.keys()];
      return {
        code: RefusalCode.ElicitationUnknownQuestion,
        message:
          waiting.length === 0
            ? `The run is not waiting for any elicitation ('${response.id}' is unknown).`
            : `No pending elicitation '${response.id}'. Pending: ${waiting.join(', ')}.`,
      };
    }
    if (pending.token !== undefined && response.token !== pending.token) {
      return {
        code: RefusalCode.ElicitationTokenMismatch,
        message:
          `The answer does not echo the token of pending elicitation '${response.id}'. Read the token from ` +
          '`run.state().pendingElicitations` or the `elicitation-requested` event (the client does it for you).',
      };
    }
    if (response.responder !== undefined && typeof response.responder !== 'string')
      return invalid('responder must be a string.');
    if ((response.responder?.length ?? 0) > ELICITATION_LIMITS.responderChars) {
      return invalid(`responder must be at most ${ELICITATION_LIMITS.responderChars} characters.`);
    }
    const check = checkElicitationResponse(pending.requestedSchema, response);
    return check.ok ? undefined : invalid(`The answer does not fit the question: ${check.problem}.`);
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
