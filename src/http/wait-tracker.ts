import type { RunEvent, RunState } from '../protocol/index.js';

/**
 * Follows a run's events to tell when it waits for the page: an approval or a client-side tool result is pending
 * (or, with `questions`, an MCP question too) and every running tool is only waiting on a person's answer to its
 * server's question. `useChat` sends approvals back with a new request, so its response ends there, while an
 * elicitation is answered by its own POST and the response stays open; AG-UI ends the run on every interrupt.
 */
export class WaitTracker {
  constructor(private readonly questions = false) {}

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
    const questions = this.questions ? this.asking.size : 0;
    if (this.approvals.size + this.toolResults.size + questions === 0) return false;
    const asking = new Set(this.asking.values());
    return [...this.running].every((id) => asking.has(id));
  }
}

/** The same question asked of the run's state, which has the last word (events may still be on their way). */
export function stateWaitsForPage(state: RunState, questions = false): boolean {
  if (state.status !== 'waiting') return false;
  const asked = questions ? state.pendingElicitations.length : 0;
  if (state.pendingApprovals.length + state.pendingToolResults.length + asked === 0) return false;
  return state.runningTools.every((tool) => state.pendingElicitations.some((q) => q.toolCallId === tool.toolCallId));
}
