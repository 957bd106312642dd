import { ApplicationFailure, condition, log, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  FailureType,
  RefusalCode,
  type ElicitationRecord,
  type ElicitationResponse,
  type Refusal,
} from '../src/protocol/index.js';
import {
  approvalSignal,
  approvalUpdate,
  eventsQuery,
  stateQuery,
  toolProgressSignal,
  toolResultSignal,
  toolResultUpdate,
  transcriptQuery,
  mcpListingQuery,
  elicitationQuery,
  elicitationRequestSignal,
  elicitationResponseSignal,
  elicitationResponseUpdate,
} from '../src/protocol/run-messages.js';
import type { AgentRunState } from './run-state.js';

/**
 * Registers every signal, query and update of a run; call it before the first await so that early signals and
 * queries are never lost. Signals have no validator: malformed ones are logged and ignored (a throw would fail every
 * workflow task). Updates reject bad input in their validator, before anything is recorded.
 */
export function registerHandlers(state: AgentRunState): void {
  const { approvals, clientTools } = state;
  setHandler(approvalSignal, (decision) => {
    const why = approvals.malformed(decision);
    if (why) log.warn('Ignored a malformed approval signal', { why: why.message });
    else approvals.receive(decision);
  });
  setHandler(
    approvalUpdate,
    async (decision) => {
      // The validator ran in this same activation, so the decision is accepted unless a rule changed in between.
      if (!approvals.receive(decision, true)) {
        throw refusal(
          approvals.rejection(decision) ?? { code: RefusalCode.RunRefused, message: 'The decision was ignored.' },
        );
      }
      await condition(() => approvals.hasOutcome(decision));
      const outcome = approvals.takeOutcome(decision);
      if ('refused' in outcome) throw refusal({ code: RefusalCode.ApprovalNotAuthorized, message: outcome.refused });
      return outcome.record;
    },
    { validator: (decision) => reject(approvals.malformed(decision) ?? approvals.rejection(decision)) },
  );
  setHandler(toolResultSignal, (submission) => {
    const why = clientTools.malformed(submission);
    if (why) log.warn('Ignored a malformed tool-result signal', { why: why.message });
    else clientTools.receive(submission);
  });
  setHandler(toolResultUpdate, (submission) => clientTools.receive(submission), {
    validator: (submission) => reject(clientTools.malformed(submission) ?? clientTools.rejection(submission)),
  });
  setHandler(toolProgressSignal, (progress) => state.recordProgress(progress));
  registerElicitationHandlers(state);
  setHandler(mcpListingQuery, (server, version) => state.listingFor(server, version));
  setHandler(stateQuery, () => state.snapshot());
  setHandler(eventsQuery, (after, limit) => state.events.after(after, limit));
  setHandler(transcriptQuery, (from, to, fromPart) => state.transcriptPage(workflowInfo().runId, from, to, fromPart));
}

/**
 * A refusal as the failure the client receives: its `type` is the refusal's code, which the client exposes as
 * `RunRequestRejectedError.code`. Thrown from a validator it records nothing; thrown from a handler (after the
 * validator accepted) it completes the update with that failure.
 */
function refusal({ code, message }: Refusal): ApplicationFailure {
  return ApplicationFailure.create({ type: code, message, nonRetryable: true });
}

// The elicitation group's codes come with the elicitation rework; until then its refusals keep their old type.
function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.ApprovalRefused, message, nonRetryable: true });
}

function reject(why: Refusal | string | undefined): void {
  if (why === undefined) return;
  if (typeof why === 'string') throw new Error(why);
  throw refusal(why);
}

/**
 * MCP questions: a tool activity puts one to the run (once per id), people answer by update (validated against the
 * question's schema) or signal, and the activity holding the call polls the answer. A question nobody answers within
 * the elicitation timeout is answered `cancel`.
 */
function registerElicitationHandlers(state: AgentRunState): void {
  const { elicitations, events } = state;
  setHandler(elicitationRequestSignal, (request) => {
    const why = elicitations.malformedRequest(request);
    if (why) {
      log.warn('Ignored an elicitation request', { why });
      return;
    }
    const pending = elicitations.request(request, new Date(), state.elicitationTimeoutMs);
    if (!pending) return;
    const { id, toolCallId, toolName, serverName, message, requestedSchema } = pending;
    events.emit({ type: 'elicitation-requested', id, toolCallId, toolName, serverName, message, requestedSchema });
    const timeoutMs = state.elicitationTimeoutMs;
    if (timeoutMs !== undefined) void expireUnanswered(state, id, timeoutMs);
  });
  const apply = (response: ElicitationResponse): ElicitationRecord | undefined => {
    if (!elicitations.answer(response, new Date())) return undefined;
    const record = elicitations.recordFor(response.id)!;
    events.emit({
      type: 'elicitation-answered',
      id: record.id,
      action: record.action,
      ...(record.responder !== undefined ? { responder: record.responder } : {}),
    });
    return record;
  };
  setHandler(elicitationResponseSignal, (response) => {
    if (!apply(response)) log.warn('Ignored an elicitation answer', { why: elicitations.rejection(response) });
  });
  setHandler(
    elicitationResponseUpdate,
    (response) => {
      const record = apply(response);
      if (!record) throw refused(elicitations.rejection(response) ?? 'The answer was ignored.');
      return record;
    },
    { validator: (response) => reject(elicitations.rejection(response)) },
  );
  setHandler(elicitationQuery, (id) => elicitations.status(id));
}

/** Answers `cancel` for a question still unanswered when its timeout passes. */
async function expireUnanswered(state: AgentRunState, id: string, timeoutMs: number): Promise<void> {
  if (await condition(() => state.elicitations.isAnswered(id), timeoutMs)) return;
  if (state.elicitations.expire(id, new Date())) {
    state.events.emit({ type: 'elicitation-answered', id, action: 'cancel', timedOut: true });
  }
}
