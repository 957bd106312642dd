import type { ApprovalDecision, ApprovalRecord, PendingApproval } from '../src/protocol/index.js';

/** A tool call that needs a person's decision before it runs. */
export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  args: PendingApproval['args'];
  step: number;
}

/**
 * Pending approvals of a run and the decisions that settle them. Pure state: the workflow waits with `condition` on
 * {@link ApprovalBook.hasDecision}. Every transition is idempotent: a decision applies once, a duplicate is ignored,
 * and a decision that arrives before its request is kept for it.
 */
export class ApprovalBook {
  private readonly pending = new Map<string, PendingApproval>();
  /** Decisions received but not yet consumed by a request (early ones included). */
  private readonly received = new Map<string, ApprovalDecision>();
  /** Tool-call ids whose approval is settled (decided or timed out). */
  private readonly settled = new Set<string>();

  constructor(
    private readonly records: ApprovalRecord[] = [],
    early: ApprovalDecision[] = [],
  ) {
    // Decisions carried over continue-as-new stay settled, so a late duplicate is still ignored; early decisions
    // (received before their call was made) still wait for it.
    for (const record of records) this.settled.add(record.toolCallId);
    for (const decision of early) this.received.set(decision.toolCallId, decision);
  }

  /** Decisions received for calls the run has not asked about yet, to carry over continue-as-new. */
  early(): ApprovalDecision[] {
    return [...this.received.values()];
  }

  /** Why a decision is not even well-formed, or undefined. */
  malformed(decision: ApprovalDecision | null | undefined): string | undefined {
    if (typeof decision !== 'object' || decision === null) return 'A decision must be an object.';
    if (typeof decision.toolCallId !== 'string' || decision.toolCallId === '') {
      return 'toolCallId must be a non-empty string.';
    }
    if (typeof decision.approved !== 'boolean') return 'approved must be true or false.';
    if (decision.reason !== undefined && typeof decision.reason !== 'string') return 'reason must be a string.';
    if (decision.approver !== undefined && typeof decision.approver !== 'string') return 'approver must be a string.';
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

  /** Records a decision. Returns false when it was ignored (duplicate or already settled). */
  receive(decision: ApprovalDecision): boolean {
    if (this.settled.has(decision.toolCallId) || this.received.has(decision.toolCallId)) return false;
    this.received.set(decision.toolCallId, decision);
    return true;
  }

  /** Why an update's decision must be rejected, or undefined when it is acceptable. Touches nothing. */
  rejection(decision: ApprovalDecision): string | undefined {
    const id = decision.toolCallId;
    if (this.settled.has(id) || this.received.has(id)) return `The approval for tool call '${id}' was already decided.`;
    if (!this.pending.has(id)) {
      const waiting = [...this.pending.keys()];
      return waiting.length === 0
        ? `The run is not waiting for any approval (tool call '${id}' is unknown).`
        : `No pending approval for tool call '${id}'. Pending: ${waiting.join(', ')}.`;
    }
    return undefined;
  }

  /** Opens a request: it is pending until {@link settle}. */
  request(request: ApprovalRequest, now: Date, timeoutMs: number | undefined): PendingApproval {
    // A provider may reuse an id in a later step: that is a new request, not the one already decided.
    this.settled.delete(request.toolCallId);
    const pending: PendingApproval = {
      ...request,
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
    const { toolName, requestedAt } = pending;
    const decidedAt = now.toISOString();
    const record: ApprovalRecord =
      decided && decision
        ? {
            toolCallId,
            toolName,
            approved: decision.approved,
            ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
            ...(decision.approver !== undefined ? { approver: decision.approver } : {}),
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
    return record;
  }

  /** Forgets every pending request (the run ended); their calls never run. */
  abandon(): void {
    this.pending.clear();
  }

  /** The latest decision recorded for a tool call, once settled. */
  recordFor(toolCallId: string): ApprovalRecord | undefined {
    return this.records.findLast((r) => r.toolCallId === toolCallId);
  }
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}
