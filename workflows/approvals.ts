import { condition } from '@temporalio/workflow';
import type { ApprovalDecision, ApprovalRecord, JsonValue, PendingApproval } from '../src/protocol/index.js';

/**
 * Pending approvals of a run and the decisions that settle them. Every transition is idempotent: a decision
 * applies once, a duplicate is ignored, and a decision that arrives before its wait starts is kept for it.
 */
export class ApprovalBook {
  private readonly pending = new Map<string, PendingApproval>();
  /** Decisions received but not yet consumed by a wait (early ones included). */
  private readonly received = new Map<string, ApprovalDecision>();
  /** Tool-call ids whose approval is settled (decided or timed out). */
  private readonly settled = new Set<string>();

  constructor(
    private readonly records: ApprovalRecord[],
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

  list(): PendingApproval[] {
    return [...this.pending.values()];
  }

  history(): ApprovalRecord[] {
    return [...this.records];
  }

  /** Records a decision from a signal. Returns false when it was ignored (duplicate or already settled). */
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

  /**
   * Waits for a decision on one tool call, up to `timeoutMs`. A timeout denies with a reason saying so.
   * Cancellation of the workflow rejects the wait, so no tool runs.
   */
  async await(
    request: { toolCallId: string; toolName: string; args: JsonValue; step: number },
    timeoutMs: number | undefined,
    onRequested: (pending: PendingApproval) => void,
  ): Promise<ApprovalRecord> {
    // A provider may reuse an id in a later step: that is a new request, not the one already decided.
    this.settled.delete(request.toolCallId);
    const requestedAt = new Date();
    const pending: PendingApproval = {
      ...request,
      requestedAt: requestedAt.toISOString(),
      ...(timeoutMs !== undefined ? { expiresAt: new Date(requestedAt.getTime() + timeoutMs).toISOString() } : {}),
    };
    this.pending.set(request.toolCallId, pending);
    onRequested(pending);
    const arrived = () => this.received.has(request.toolCallId);
    const decided = timeoutMs === undefined ? (await condition(arrived), true) : await condition(arrived, timeoutMs);
    this.pending.delete(request.toolCallId);
    this.settled.add(request.toolCallId);
    const decision = this.received.get(request.toolCallId);
    this.received.delete(request.toolCallId);
    const record: ApprovalRecord =
      decided && decision
        ? {
            toolCallId: request.toolCallId,
            toolName: request.toolName,
            approved: decision.approved,
            ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
            ...(decision.approver !== undefined ? { approver: decision.approver } : {}),
            requestedAt: pending.requestedAt,
            decidedAt: new Date().toISOString(),
          }
        : {
            toolCallId: request.toolCallId,
            toolName: request.toolName,
            approved: false,
            reason: `Approval timed out after ${formatDuration(timeoutMs ?? 0)} without a decision.`,
            timedOut: true,
            requestedAt: pending.requestedAt,
            decidedAt: new Date().toISOString(),
          };
    this.records.push(record);
    return record;
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
