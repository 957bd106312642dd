import { condition, log, uuid4 } from '@temporalio/workflow';
import type { ElicitationRequest } from '../../src/protocol/index.js';
import { announce, expire } from '../elicitation-events.js';
import type { AgentRunState } from '../run-state.js';

// MCP questions as v0.3.0 activities ask them (a request signal), and the expiry of questions on protocols 1–2.
// The signal stays registered on every protocol so that a v0.3.0 activity still running finishes its call. Retired
// with protocol 2 and v0.3.0 workers (docs/upgrading.md).

/**
 * The v0.3.0 request signal: recorded once per id, with a detached expiry timer (as released). On protocol 4 a
 * signalled question is held to the update's rules (a running call, an id bound to its content) and gets a token.
 */
export function recordSignalledRequest(state: AgentRunState, request: ElicitationRequest): void {
  const { elicitations } = state;
  const why = elicitations.malformedRequest(request);
  if (why) {
    log.warn('Ignored an elicitation request', { why });
    return;
  }
  const bound = state.protocol >= 4;
  if (bound) {
    const refused = elicitations.askRefusal(request, state.runningTools.get(request.toolCallId)?.toolName);
    if (refused) {
      log.warn('Ignored an elicitation request', { why: refused.message });
      return;
    }
  }
  const pending = elicitations.request(
    request,
    state.clock.now(),
    state.elicitationTimeoutMs,
    bound ? uuid4() : undefined,
  );
  if (!pending) return;
  announce(state, pending);
  legacyExpireLater(state, pending.id);
}

/**
 * Protocols 1–2: a question's expiry is a detached timer started when it is recorded (the call's wait does not time
 * out: `legacyWaitForAnswer`). Also for questions that this code's activities ask by update in such a run, which no
 * v0.1.0–v0.3.0 history holds.
 */
export function legacyExpireLater(state: AgentRunState, id: string): void {
  const timeoutMs = state.elicitationTimeoutMs;
  if (timeoutMs !== undefined) void expireUnanswered(state, id, timeoutMs);
}

/** v0.3.0: answers `cancel` for a question still unanswered when its timeout passes. */
async function expireUnanswered(state: AgentRunState, id: string, timeoutMs: number): Promise<void> {
  if (await condition(() => state.elicitations.isAnswered(id), timeoutMs)) return;
  expire(state, id);
}
