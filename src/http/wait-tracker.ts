import type { RunEvent, RunState } from '../protocol/index.js';

/**
 * Follows a run's events to tell when it waits for the page: an approval or a client-side tool result is pending
 * and every running tool is only waiting on a person's answer to its server's question. `useChat` sends approvals
 * back with a new request, so the response ends there; an elicitation is answered by its own POST and the
 * response stays open.
 */
export class WaitTracker {
  private readonly approvals = new Set<string>();
  private readonly toolResults = new Set<string>();
  private readonly running = new Set<string>();
  /** Tool calls with a pending question, by question id. */
  private readonly asking = new Map<string, string>();

  see(event: RunEvent): void {
    switch (event.type) {
      case 'approval-requested':
        this.approvals.add(event.toolCallId);
        break;
      case 'approval-decided':
        this.approvals.delete(event.toolCallId);
        break;
      case 'tool-result-requested':
        this.toolResults.add(event.toolCallId);
        break;
      case 'tool-started':
        this.running.add(event.toolCallId);
        break;
      case 'tool-result':
        this.running.delete(event.toolCallId);
        this.toolResults.delete(event.toolCallId);
        this.approvals.delete(event.toolCallId);
        break;
      case 'elicitation-requested':
        this.asking.set(event.id, event.toolCallId);
        break;
      case 'elicitation-answered':
        this.asking.delete(event.id);
        break;
      default:
        break;
    }
  }

  /** Whether the events seen so far leave the run waiting for the page. */
  get waitingForPage(): boolean {
    if (this.approvals.size + this.toolResults.size === 0) return false;
    const asking = new Set(this.asking.values());
    return [...this.running].every((id) => asking.has(id));
  }
}

/** The same question asked of the run's state, which has the last word (events may still be on their way). */
export function stateWaitsForPage(state: RunState): boolean {
  if (state.status !== 'waiting') return false;
  if (state.pendingApprovals.length + state.pendingToolResults.length === 0) return false;
  return state.runningTools.every((tool) => state.pendingElicitations.some((q) => q.toolCallId === tool.toolCallId));
}
