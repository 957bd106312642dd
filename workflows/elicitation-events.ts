import type { AgentRunState } from './run-state.js';

// The events of a question's life, shared by protocol 4's handlers and the legacy ones.

/** A new question: clients see it (with its token, on protocol 4) and may answer it. */
export function announce(
  state: AgentRunState,
  pending: ReturnType<AgentRunState['elicitations']['list']>[number],
): void {
  const { id, toolCallId, toolName, serverName, message, requestedSchema, token } = pending;
  state.events.emit({
    type: 'elicitation-requested',
    id,
    toolCallId,
    toolName,
    serverName,
    message,
    requestedSchema,
    ...(token !== undefined ? { token } : {}),
  });
}

/** A question nobody answered in time is answered `cancel`. */
export function expire(state: AgentRunState, id: string): void {
  if (state.elicitations.expire(id, state.clock.now())) {
    state.events.emit({ type: 'elicitation-answered', id, action: 'cancel', timedOut: true });
  }
}
