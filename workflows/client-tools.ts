import {
  INPUT_LIMITS,
  jsonBytes,
  RefusalCode,
  refusedPayloadOf,
  type PendingToolResult,
  type Refusal,
  type ToolResultSubmission,
} from '../src/protocol/index.js';

/**
 * Client-side tool calls waiting for their result, and the results submitted for them. Pure state: the workflow
 * waits with `condition` on {@link ClientToolBook.hasResult}. A result submitted before its call is asked for is
 * kept for it (and carried over continue-as-new); a second result for the same call is ignored.
 */
export class ClientToolBook {
  private readonly pending = new Map<string, PendingToolResult>();
  private readonly submitted = new Map<string, ToolResultSubmission>();

  /**
   * `bound` (from protocol 2, v0.2.0): a result over `INPUT_LIMITS.toolResultBytes` sent by signal is
   * replaced by an error the model reads, and at most `INPUT_LIMITS.earlyToolResults` results are kept for calls
   * not asked about yet. Runs started before keep v0.1.0's behaviour.
   */
  constructor(
    early: ToolResultSubmission[] = [],
    private readonly bound = false,
  ) {
    for (const submission of bound ? early.slice(0, INPUT_LIMITS.earlyToolResults) : early) {
      this.submitted.set(submission.toolCallId, submission);
    }
  }

  /** Why a submission is not even well-formed, or undefined. */
  malformed(submission: ToolResultSubmission | null | undefined): Refusal | undefined {
    const refused = refusedPayloadOf(submission);
    if (refused) {
      const message = `The worker's payload codec refused the result (${refused.code}): ${refused.message}`;
      return { code: RefusalCode.InputUndecodable, message };
    }
    if (typeof submission?.toolCallId !== 'string') {
      return { code: RefusalCode.InputMalformed, message: 'toolCallId must be a string.' };
    }
    return undefined;
  }

  /** Why an update's submission must be rejected (with the rule's code), or undefined. Touches nothing. */
  rejection(submission: ToolResultSubmission): Refusal | undefined {
    const bytes = jsonBytes(submission.output);
    if (bytes > INPUT_LIMITS.toolResultBytes) return { code: RefusalCode.InputTooLarge, message: tooLarge(bytes) };
    if (!this.pending.has(submission.toolCallId)) {
      const waiting = [...this.pending.keys()];
      const message =
        `No client-side tool call '${submission.toolCallId}' is waiting for a result.` +
        (waiting.length ? ` Waiting: ${waiting.join(', ')}.` : '');
      return { code: RefusalCode.ToolResultUnknownCall, message };
    }
    if (this.submitted.has(submission.toolCallId)) {
      const message = `A result for tool call '${submission.toolCallId}' was already submitted.`;
      return { code: RefusalCode.ToolResultAlreadySubmitted, message };
    }
    return undefined;
  }

  /** Keeps a submitted result unless one is already there for the same call (or, bounded, too many are early). */
  receive(submission: ToolResultSubmission): void {
    const id = submission.toolCallId;
    if (this.submitted.has(id)) return;
    if (!this.bound) {
      this.submitted.set(id, submission);
      return;
    }
    if (!this.pending.has(id) && this.early().length >= INPUT_LIMITS.earlyToolResults) return;
    const bytes = jsonBytes(submission.output);
    this.submitted.set(
      id,
      bytes > INPUT_LIMITS.toolResultBytes
        ? { toolCallId: id, isError: true, output: { error: true, message: tooLarge(bytes) } }
        : submission,
    );
  }

  /** Opens a request for a client-side call's result. */
  request(pending: PendingToolResult): void {
    this.pending.set(pending.toolCallId, pending);
  }

  hasResult(toolCallId: string): boolean {
    return this.submitted.has(toolCallId);
  }

  /**
   * Closes the request and consumes its result: a later call that reuses the id (some providers number ids per
   * step) waits for its own.
   */
  take(toolCallId: string): ToolResultSubmission {
    const submission = this.submitted.get(toolCallId);
    if (!submission) throw new Error(`No result for tool call '${toolCallId}'`);
    this.pending.delete(toolCallId);
    this.submitted.delete(toolCallId);
    return submission;
  }

  /** The calls waiting for a result. */
  list(): PendingToolResult[] {
    return [...this.pending.values()];
  }

  /** Results received for calls not asked about yet, to carry over continue-as-new. */
  early(): ToolResultSubmission[] {
    return [...this.submitted.values()].filter((s) => !this.pending.has(s.toolCallId));
  }

  /** Forgets every pending request (the run ended). */
  abandon(): void {
    this.pending.clear();
  }
}

function tooLarge(bytes: number): string {
  return (
    `The client-side tool result is ${bytes} bytes, over the ${INPUT_LIMITS.toolResultBytes}-byte limit for a ` +
    'result recorded in the run. Submit a smaller result: a summary, a page, or a reference such as a URL.'
  );
}
