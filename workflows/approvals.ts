import {
  INPUT_LIMITS,
  jsonBytes,
  RefusalCode,
  refusedPayloadOf,
  type ApprovalDecision,
  type ApprovalRecord,
  type PendingApproval,
  type Refusal,
} from '../src/protocol/index.js';

/** A tool call that needs a person's decision before it runs. */
export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  args: PendingApproval['args'];
  step: number;
}

/** How decisions are accepted. */
export interface ApprovalRules {
  /**
   * From protocol 2 (v0.2.0): a decision must echo its request's token, its fields are bounded, and
   * decisions for requests not made yet are kept only when `earlyDecisions` allows it, at most
   * `INPUT_LIMITS.earlyDecisions` of them. Runs started before keep v0.1.0's rules (any decision by id, kept early).
   */
  bound: boolean;
  /** Keep decisions that arrive before their request. Until the agent's policy is known, kept provisionally. */
  earlyDecisions: boolean | 'unknown';
}

const V0_1_RULES: ApprovalRules = { bound: false, earlyDecisions: true };

/** What became of a decision sent by update: the record it produced, or why it was refused. */
export type DecisionOutcome = { record: ApprovalRecord } | { refused: string };

/**
 * Pending approvals of a run and the decisions that settle them. Pure state: the workflow waits with `condition` on
 * {@link ApprovalBook.hasDecision}. Every transition is idempotent: a decision applies once, a duplicate is ignored.
 */
export class ApprovalBook {
  private readonly pending = new Map<string, PendingApproval>();
  /** Decisions received but not yet consumed by a request (early ones included). */
  private readonly received = new Map<string, ApprovalDecision>();
  /** Tool-call ids whose approval is settled (decided or timed out). */
  private readonly settled = new Set<string>();
  /** Outcomes of decisions whose sender waits for one (updates), by decision object. */
  private readonly outcomes = new Map<ApprovalDecision, DecisionOutcome | undefined>();
  /** An identity the agent's `authorizeDecision` hook vouched for, by tool-call id. */
  private readonly vouched = new Map<string, string>();

  constructor(
    private readonly records: ApprovalRecord[] = [],
    early: ApprovalDecision[] = [],
    private rules: ApprovalRules = V0_1_RULES,
  ) {
    // Decisions carried over continue-as-new stay settled, so a late duplicate is still ignored; early decisions
    // (received before their call was made) still wait for it.
    for (const record of records) this.settled.add(record.toolCallId);
    for (const decision of early.slice(0, rules.bound ? INPUT_LIMITS.earlyDecisions : undefined)) {
      this.received.set(decision.toolCallId, decision);
    }
  }

  /** True when decisions must echo their request's token (v0.2.0 rules). */
  isBound(): boolean {
    return this.rules.bound;
  }

  /** Applies the agent's early-decision policy once it is known; early decisions it does not allow are dropped. */
  setEarlyDecisions(allowed: boolean): void {
    if (!this.rules.bound) return;
    this.rules = { ...this.rules, earlyDecisions: allowed };
    if (!allowed) for (const id of this.earlyIds()) this.received.delete(id);
  }

  /** Decisions received for calls the run has not asked about yet, to carry over continue-as-new. */
  early(): ApprovalDecision[] {
    return this.earlyIds().map((id) => this.received.get(id)!);
  }

  /** Why a decision is not even well-formed (with the rule's code), or undefined. */
  malformed(decision: ApprovalDecision | null | undefined): Refusal | undefined {
    const refused = refusedPayloadOf(decision);
    if (refused) {
      const message = `The worker's payload codec refused the decision (${refused.code}): ${refused.message}`;
      return { code: RefusalCode.InputUndecodable, message };
    }
    if (typeof decision !== 'object' || decision === null) return malformedInput('A decision must be an object.');
    if (typeof decision.toolCallId !== 'string' || decision.toolCallId === '') {
      return malformedInput('toolCallId must be a non-empty string.');
    }
    if (typeof decision.approved !== 'boolean') return malformedInput('approved must be true or false.');
    if (decision.reason !== undefined && typeof decision.reason !== 'string') {
      return malformedInput('reason must be a string.');
    }
    if (decision.approver !== undefined && typeof decision.approver !== 'string') {
      return malformedInput('approver must be a string.');
    }
    if (!this.rules.bound) return undefined;
    if (decision.token !== undefined && typeof decision.token !== 'string') {
      return malformedInput('token must be a string.');
    }
    if ((decision.reason?.length ?? 0) > INPUT_LIMITS.reasonChars) {
      return tooLargeInput(`reason must be at most ${INPUT_LIMITS.reasonChars} characters.`);
    }
    if ((decision.approver?.length ?? 0) > INPUT_LIMITS.approverChars) {
      return tooLargeInput(`approver must be at most ${INPUT_LIMITS.approverChars} characters.`);
    }
    if (jsonBytes(decision.identity) > INPUT_LIMITS.identityBytes) {
      return tooLargeInput(`identity must be at most ${INPUT_LIMITS.identityBytes} bytes of JSON.`);
    }
    return undefined;
  }

  /** The calls waiting for a decision. */
  list(): PendingApproval[] {
    return [...this.pending.values()];
  }

  /** Every settled decision, oldest first. */
  history(): ApprovalRecord[] {
    return [...this.records];
  }

  /**
   * Records a well-formed decision. Returns false when it was ignored: a duplicate, already settled, not matching
   * its request's token, or early when early decisions are not kept (or too many are). `awaitOutcome` marks a
   * decision whose sender waits for {@link outcomeOf}.
   */
  receive(decision: ApprovalDecision, awaitOutcome = false): boolean {
    const id = decision.toolCallId;
    if (this.settled.has(id) || this.received.has(id)) return false;
    const pending = this.pending.get(id);
    if (this.rules.bound) {
      if (pending ? decision.token !== pending.token : !this.acceptsEarly()) return false;
    }
    this.received.set(id, decision);
    if (awaitOutcome) this.outcomes.set(decision, undefined);
    return true;
  }

  /**
   * Why an update's decision must be rejected (with the rule's code), or undefined when it is acceptable. Touches
   * nothing.
   */
  rejection(decision: ApprovalDecision): Refusal | undefined {
    const id = decision.toolCallId;
    if (this.settled.has(id) || this.received.has(id)) {
      return {
        code: RefusalCode.ApprovalAlreadyDecided,
        message: `The approval for tool call '${id}' was already decided.`,
      };
    }
    const pending = this.pending.get(id);
    if (!pending) {
      const waiting = [...this.pending.keys()];
      const message =
        waiting.length === 0
          ? `The run is not waiting for any approval (tool call '${id}' is unknown).`
          : `No pending approval for tool call '${id}'. Pending: ${waiting.join(', ')}.`;
      return { code: RefusalCode.ApprovalUnknownCall, message };
    }
    if (pending.token !== undefined && decision.token !== pending.token) {
      const message =
        `The decision does not answer the pending request for tool call '${id}': its token does not match. ` +
        'Read the request (run.state() or the approval-requested event) and decide on what it shows.';
      return { code: RefusalCode.ApprovalTokenMismatch, message };
    }
    return undefined;
  }

  /** Opens a request: it is pending until {@link settle}. */
  request(request: ApprovalRequest, now: Date, timeoutMs: number | undefined, token?: string): PendingApproval {
    // A provider may reuse an id in a later step: that is a new request, not the one already decided.
    this.settled.delete(request.toolCallId);
    const pending: PendingApproval = {
      ...request,
      ...(token !== undefined ? { token } : {}),
      requestedAt: now.toISOString(),
      ...(timeoutMs !== undefined ? { expiresAt: new Date(now.getTime() + timeoutMs).toISOString() } : {}),
    };
    this.pending.set(request.toolCallId, pending);
    return pending;
  }

  /** True once a decision for this call has been received. */
  hasDecision(toolCallId: string): boolean {
    return this.received.has(toolCallId);
  }

  /** The decision received for a pending call, if any. */
  decisionFor(toolCallId: string): ApprovalDecision | undefined {
    return this.received.get(toolCallId);
  }

  /** The agent's `authorizeDecision` hook refused the decision received for this call: the request stays pending. */
  refuse(toolCallId: string, reason: string): ApprovalDecision | undefined {
    const decision = this.received.get(toolCallId);
    this.received.delete(toolCallId);
    if (decision && this.outcomes.has(decision)) this.outcomes.set(decision, { refused: reason });
    return decision;
  }

  /** The agent's `authorizeDecision` hook vouched for this identity of the decider. */
  vouch(toolCallId: string, approver: string): void {
    this.vouched.set(toolCallId, approver);
  }

  /**
   * Closes a pending request with the decision received for it, or, when `decided` is false, as denied after
   * `timeoutMs` without a decision. Returns the record, which is also kept in {@link history}.
   */
  settle(toolCallId: string, now: Date, decided: boolean, timeoutMs?: number): ApprovalRecord {
    const pending = this.pending.get(toolCallId);
    if (!pending) throw new Error(`No pending approval for tool call '${toolCallId}'`);
    this.pending.delete(toolCallId);
    this.settled.add(toolCallId);
    const decision = this.received.get(toolCallId);
    this.received.delete(toolCallId);
    const verified = this.vouched.get(toolCallId);
    this.vouched.delete(toolCallId);
    const { toolName, requestedAt } = pending;
    const decidedAt = now.toISOString();
    const approver = verified ?? decision?.approver;
    const record: ApprovalRecord =
      decided && decision
        ? {
            toolCallId,
            toolName,
            approved: decision.approved,
            ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
            ...(approver !== undefined ? { approver } : {}),
            ...(verified !== undefined ? { approverVerified: true } : {}),
            requestedAt,
            decidedAt,
          }
        : {
            toolCallId,
            toolName,
            approved: false,
            reason: `Approval timed out after ${formatDuration(timeoutMs ?? 0)} without a decision.`,
            timedOut: true,
            requestedAt,
            decidedAt,
          };
    this.records.push(record);
    if (decision && this.outcomes.has(decision)) this.outcomes.set(decision, { record });
    return record;
  }

  /** True once a decision received with `awaitOutcome` was applied or refused. */
  hasOutcome(decision: ApprovalDecision): boolean {
    return this.outcomes.get(decision) !== undefined;
  }

  /** What became of a decision received with `awaitOutcome` (see {@link hasOutcome}); taking it forgets it. */
  takeOutcome(decision: ApprovalDecision): DecisionOutcome {
    const outcome = this.outcomes.get(decision);
    if (!outcome) throw new Error(`No outcome yet for the decision on tool call '${decision.toolCallId}'`);
    this.outcomes.delete(decision);
    return outcome;
  }

  /** Forgets every pending request (the run ended); their calls never run. */
  abandon(): void {
    this.pending.clear();
  }

  /** The latest decision recorded for a tool call, once settled. */
  recordFor(toolCallId: string): ApprovalRecord | undefined {
    return this.records.findLast((r) => r.toolCallId === toolCallId);
  }

  private earlyIds(): string[] {
    return [...this.received.keys()].filter((id) => !this.pending.has(id));
  }

  private acceptsEarly(): boolean {
    return this.rules.earlyDecisions !== false && this.earlyIds().length < INPUT_LIMITS.earlyDecisions;
  }
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

function malformedInput(message: string): Refusal {
  return { code: RefusalCode.InputMalformed, message };
}

function tooLargeInput(message: string): Refusal {
  return { code: RefusalCode.InputTooLarge, message };
}
