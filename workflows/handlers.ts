import { condition, log, setHandler, workflowInfo } from '@temporalio/workflow';
import { RefusalCode, type ApprovalDecision, type Refusal } from '../src/protocol/index.js';
import { refusal } from './refusals.js';
import { registerElicitationHandlers } from './elicitation-handlers.js';
import { registerLegacyHandlers } from './legacy/handlers.js';
import {
  approvalSignal,
  approvalUpdate,
  eventsQuery,
  stateQuery,
  toolResultSignal,
  toolResultUpdate,
  transcriptQuery,
  mcpListingQuery,
} from '../src/protocol/run-messages.js';
import type { AgentRunState } from './run-state.js';

/**
 * Registers every signal, query and update of a run; call it before the first await so that early signals and
 * queries are never lost. Signals have no validator: malformed ones are logged and ignored (a throw would fail every
 * workflow task). Updates reject bad input in their validator, before anything is recorded.
 */
export function registerHandlers(state: AgentRunState): void {
  const { approvals, clientTools } = state;
  setHandler(approvalSignal, async (decision) => {
    const why = approvals.malformed(decision);
    if (why) return log.warn('Ignored a malformed approval signal', { why: why.message });
    if (approvals.rejection(decision)?.code === ApprovalUnknownCall && state.modelCall.mayHold()) {
      await state.modelCall.hold();
    }
    approvals.receive(decision);
  });
  setHandler(
    approvalUpdate,
    async (decision) => {
      // Accepted by the validator while the model call that may ask for it is in flight: judged once it returned.
      if (approvals.rejection(decision)?.code === ApprovalUnknownCall && state.modelCall.mayHold()) {
        await state.modelCall.hold();
      }
      // Otherwise the validator ran in this same activation, so the decision is accepted unless a rule changed.
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
    {
      validator: (decision) =>
        reject(
          approvals.malformed(decision) ??
            held(state, approvals.rejection(decision), ApprovalUnknownCall) ??
            uncheckedDecider(state, decision),
        ),
    },
  );
  setHandler(toolResultSignal, async (submission) => {
    const why = clientTools.malformed(submission);
    if (why) return log.warn('Ignored a malformed tool-result signal', { why: why.message });
    if (clientTools.rejection(submission)?.code === ToolResultUnknownCall && state.modelCall.mayHold()) {
      await state.modelCall.hold();
    }
    clientTools.receive(submission);
  });
  setHandler(
    toolResultUpdate,
    async (submission) => {
      if (clientTools.rejection(submission)?.code === ToolResultUnknownCall && state.modelCall.mayHold()) {
        // Accepted while the model call that may ask for it is in flight: judged once it returned, by the same rules.
        await state.modelCall.hold();
        reject(clientTools.rejection(submission));
      }
      clientTools.receive(submission);
    },
    {
      validator: (submission) =>
        reject(
          clientTools.malformed(submission) ?? held(state, clientTools.rejection(submission), ToolResultUnknownCall),
        ),
    },
  );
  registerLegacyHandlers(state);
  registerElicitationHandlers(state);
  setHandler(mcpListingQuery, (server, version) => state.listingFor(server, version));
  setHandler(stateQuery, () => state.snapshot());
  setHandler(eventsQuery, (after, limit) => state.events.after(after, limit));
  setHandler(transcriptQuery, (from, to, fromPart) => state.transcriptPage(workflowInfo().runId, from, to, fromPart));
}

const { ApprovalUnknownCall, ToolResultUnknownCall } = RefusalCode;

/**
 * A validator's refusal, unless it is `unknownCall` and the answer may be held until the model call in flight
 * returns (protocol 4): then none, and the handler holds it (see workflows/model-call-gate.ts).
 */
function held(state: AgentRunState, why: Refusal | undefined, unknownCall: RefusalCode): Refusal | undefined {
  return why?.code === unknownCall && state.modelCall.mayHold() ? undefined : why;
}

/**
 * A decision whose sender is not the run's user asks to be checked by the agent's `authorizeDecision` hook: without
 * one, nothing would check it, so it is refused. (Validators are not replayed: refusing more needs no patch.)
 */
function uncheckedDecider(state: AgentRunState, decision: ApprovalDecision): Refusal | undefined {
  if (decision.requireAuthorization !== true || state.authorizesDecisions) return undefined;
  return {
    code: RefusalCode.ApprovalNotAuthorized,
    message:
      "The decider is not the run's user, and the agent has no authorizeDecision hook to check who may decide: " +
      "only the run's user may decide on its calls. Give the agent approval.authorizeDecision to let others decide.",
  };
}

function reject(why: Refusal | string | undefined): void {
  if (why === undefined) return;
  if (typeof why === 'string') throw new Error(why);
  throw refusal(why);
}
