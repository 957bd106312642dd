import { condition, log, proxyLocalActivities, setHandler, uuid4, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  ELICITATION_LIMITS,
  ELICITATION_REQUEST_TOOL_NAME,
  INPUT_LIMITS,
  jsonBytes,
  type Refusal,
  type ElicitationAsk,
  type ElicitationAskOutcome,
  type ElicitationRecord,
  type ElicitationResponse,
  RefusalCode,
} from '../src/protocol/index.js';
import {
  elicitationAskUpdate,
  elicitationResponseSignal,
  elicitationResponseUpdate,
} from '../src/protocol/run-messages.js';
import { announce, expire } from './elicitation-events.js';
import { legacyExpireLater } from './legacy/elicitation.js';
import { refusal, refuse } from './refusals.js';
import type { AgentRunState } from './run-state.js';

// The agent's authorizeDecision hook, for answers from someone other than the run's user (as for approvals).
const { authorizeDecision } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 5 },
});

/**
 * MCP questions. Since v0.4.0 a tool activity asks once, by update (`elicitationAskUpdate`): the run records the
 * question (once per id), holds the update until it is answered or the hold passes, and replies with the answer or
 * `pending`. People answer by update (validated, echoing the question's token) or signal. A question nobody answers
 * within the elicitation timeout is answered `cancel` by whoever waits for it (the held update, or the call's wait
 * in `tool-calls.ts`). The v0.3.0 protocol (a request signal, a detached expiry timer, and the activity polling by
 * query) is in workflows/legacy/.
 */
export function registerElicitationHandlers(state: AgentRunState): void {
  const { elicitations } = state;
  setHandler(elicitationAskUpdate, (ask) => askAndHold(state, ask), {
    validator: (ask) => refuse(elicitations.askRefusal(ask, state.runningTools.get(ask?.toolCallId)?.toolName)),
  });
  setHandler(elicitationResponseSignal, (response) => {
    if (!applyAnswer(state, response)) {
      log.warn('Ignored an elicitation answer', { why: elicitations.rejection(response) });
    }
  });
  setHandler(
    elicitationResponseUpdate,
    // An answer that asks to be checked waits for the agent's hook; any other applies in the activation it arrived in.
    (response) =>
      response.requireAuthorization === true ? answerChecked(state, response) : answerNow(state, response),
    { validator: (response) => refuse(elicitations.refusal(response) ?? uncheckedResponder(state, response)) },
  );
}

/** Applies a validated answer, or refuses it when another answer took the question since the validator ran. */
function answerNow(state: AgentRunState, response: ElicitationResponse): ElicitationRecord {
  const record = applyAnswer(state, response);
  // The validator accepted it, so only an answer applied in between can have taken the question.
  if (!record) {
    throw refusal(
      state.elicitations.refusal(response) ?? {
        code: RefusalCode.ElicitationAlreadyAnswered,
        message: 'The question was answered while this answer was on its way.',
      },
    );
  }
  return record;
}

/**
 * Why an answer that asks to be checked (its responder is not the run's user) cannot be: this execution predates
 * checked answers (protocol 4), or the agent has no `authorizeDecision` hook. Validators are not replayed.
 */
function uncheckedResponder(state: AgentRunState, response: ElicitationResponse): Refusal | undefined {
  if (response.requireAuthorization !== true) return undefined;
  const notAuthorized = (why: string) => ({
    code: RefusalCode.ElicitationNotAuthorized,
    message: `The responder is not the run's user, and ${why}: only the run's user may answer its questions.`,
  });
  if (!state.checksAnswers) return notAuthorized('this run started before such answers could be checked');
  if (!state.authorizesDecisions) return notAuthorized('the agent has no authorizeDecision hook to check who may');
  if (jsonBytes(response.identity) > INPUT_LIMITS.identityBytes) {
    return {
      code: RefusalCode.InputTooLarge,
      message: `identity must be at most ${INPUT_LIMITS.identityBytes} bytes of JSON.`,
    };
  }
  return undefined;
}

/**
 * An answer from someone other than the run's user: the agent's `authorizeDecision` hook (a local activity) is asked
 * first, with the question as a request whose `toolName` is `mcp.elicitation`. A refused answer changes nothing; an
 * allowed one applies, its responder the one the hook vouched for when it names one.
 */
async function answerChecked(state: AgentRunState, response: ElicitationResponse): Promise<ElicitationRecord> {
  const question = state.elicitations.pendingQuestion(response.id);
  if (!question) return answerNow(state, response);
  const { workflowId, runId } = workflowInfo();
  const calledAt = state.clock.ms();
  let verdict: Awaited<ReturnType<typeof authorizeDecision>>;
  try {
    verdict = await authorizeDecision({
      agentName: state.agentName,
      decision: {
        toolCallId: question.toolCallId,
        approved: response.action === 'accept',
        ...(response.responder !== undefined ? { approver: response.responder } : {}),
        ...(response.identity !== undefined ? { identity: response.identity } : {}),
      },
      request: {
        toolCallId: question.toolCallId,
        toolName: ELICITATION_REQUEST_TOOL_NAME,
        args: {
          questionId: question.id,
          serverName: question.serverName,
          toolName: question.toolName,
          message: question.message,
        },
        step: state.runningTools.get(question.toolCallId)?.step ?? state.steps.length + 1,
        requestedAt: question.requestedAt,
      },
      run: { workflowId, runId, ...state.run, agentName: state.agentName },
    });
  } finally {
    state.clock.holdAt(calledAt);
  }
  if (!verdict.allowed) {
    throw refusal({
      code: RefusalCode.ElicitationNotAuthorized,
      message: `The agent's authorizeDecision refused the answer: ${verdict.reason ?? 'Not authorized.'}`,
    });
  }
  return answerNow(state, verdict.approver !== undefined ? { ...response, responder: verdict.approver } : response);
}

/** Records an activity's question (new ones get a token and an event) and holds it until answered or the hold ends. */
async function askAndHold(state: AgentRunState, ask: ElicitationAsk): Promise<ElicitationAskOutcome> {
  const { elicitations } = state;
  const { id } = ask;
  if (!elicitations.isAnswered(id)) {
    const pending = elicitations.request(ask, state.clock.now(), state.elicitationTimeoutMs, uuid4());
    if (pending) announce(state, pending);
    if (pending && state.protocol < 4) legacyExpireLater(state, pending.id);
    const holdMs = Math.min(Math.max(0, ask.holdMs), ELICITATION_LIMITS.maxHoldMs);
    await waitForAnswer(state, id, holdMs);
  }
  const record = elicitations.recordFor(id);
  return record ? { kind: 'answered', record } : { kind: 'pending' };
}

/**
 * Waits until question `id` is answered (or dropped), at most `holdMs` (undefined: no bound but the question's
 * expiry). A question whose expiry passes meanwhile is answered `cancel`.
 */
export async function waitForAnswer(state: AgentRunState, id: string, holdMs?: number): Promise<void> {
  const { elicitations } = state;
  const expiresAt = elicitations.pendingQuestion(id)?.expiresAt;
  const untilExpiry = expiresAt === undefined ? undefined : Math.max(0, Date.parse(expiresAt) - Date.now());
  const waitMs = holdMs === undefined ? untilExpiry : Math.min(holdMs, untilExpiry ?? holdMs);
  const settled = () => elicitations.pendingQuestion(id) === undefined;
  if (waitMs === undefined) await condition(settled);
  else if (waitMs > 0 && (await condition(settled, waitMs))) return;
  if (settled()) return;
  if (untilExpiry !== undefined && Date.parse(expiresAt!) <= Date.now()) expire(state, id);
}

function applyAnswer(state: AgentRunState, response: ElicitationResponse): ElicitationRecord | undefined {
  const { elicitations, events } = state;
  if (!elicitations.answer(response, state.clock.now())) return undefined;
  const record = elicitations.recordFor(response.id)!;
  events.emit({
    type: 'elicitation-answered',
    id: record.id,
    action: record.action,
    ...(record.responder !== undefined ? { responder: record.responder } : {}),
  });
  return record;
}
