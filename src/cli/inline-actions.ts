// What a person watching a run in a terminal can answer on the spot. Each kind of waiting (an approval, an MCP
// elicitation) is one InlineAction: it recognises its event, checks that the run still waits for it (a watch also
// replays old events), asks, and sends the answer through AgentRun. `watch` knows only the list.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentRun } from '../client/agent-run.js';
import { RunRequestRejectedError } from '../client/errors/run-request-rejected-error.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import type { RunEvent, RunState } from '../protocol/index.js';
import { askElicitation } from './ask-elicitation.js';
import { formatDecision, formatValue } from './format.js';
import { formatElicitationAnswer } from './format-elicitation.js';
import type { Prompter } from './prompter.js';
import type { Style } from './style.js';
import { terminalSafe, terminalSafeLine } from './terminal-text.js';

/** What an inline action works with. */
export interface InlineContext {
  run: AgentRun;
  prompter: Prompter;
  /** Writes a result line. */
  out(text: string): void;
  /** Writes a note. */
  note(text: string): void;
  style: Style;
  /** The person at the terminal: recorded as the approver of a decision and the responder of an answer. */
  person: string | undefined;
  /** Where the person's name comes from (`--approver`, `$USER`, the OS account), said when they are asked. */
  personFrom?: string;
}

/** Something a run waits for that can be answered inline. */
export interface InlineAction<E extends RunEvent = RunEvent> {
  /** Whether `event` asks for this. */
  matches(event: RunEvent): event is E;
  /** Whether the run still waits for it, by its current state. */
  isPending(event: E, state: RunState): boolean;
  /** Asks the person and sends the answer. Resolves `false` when nobody is there to ask any more. */
  answer(event: E, ctx: InlineContext): Promise<boolean>;
}

type ApprovalRequested = Extract<RunEvent, { type: 'approval-requested' }>;

/** A person's decision on a pending approval. */
export type ApprovalAnswer = { approved: true } | { approved: false; reason?: string } | 'skip';

const MAX_TRIES = 3;

/**
 * Asks y/n/skip for a pending approval, one key without Enter in a terminal (and, on no, an optional reason for the
 * model, a line). `as` names who decides, and where that name comes from. Resolves `undefined` when input ended or
 * was interrupted. Shared by `watch` and the demo's --interactive.
 */
export async function askApproval(
  prompter: Prompter,
  request: Pick<ApprovalRequested, 'toolName' | 'args'>,
  style: Style,
  options: { allowSkip?: boolean; as?: { name: string; from?: string | undefined } } = {},
): Promise<ApprovalAnswer | undefined> {
  const choices = options.allowSkip === false ? '[y/n]' : '[y]es / [n]o / [s]kip';
  const who = options.as
    ? ` as ${style.bold(terminalSafeLine(options.as.name))}${options.as.from ? style.dim(` (${options.as.from})`) : ''}`
    : '';
  const question = `${style.bold('Approve')} ${style.cyan(terminalSafeLine(request.toolName))} ${formatValue(request.args)}${who}? ${choices} `;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const answer = await prompter.key(question);
    if (answer === undefined) return undefined;
    if (answer === 'y') return { approved: true };
    if (answer === 'n') {
      const reason = await prompter.ask('Reason, for the model (optional): ');
      if (reason === undefined) return undefined;
      return { approved: false, ...(reason ? { reason } : {}) };
    }
    if (options.allowSkip !== false && (answer === '' || answer === 's')) return 'skip';
  }
  return 'skip';
}

/** Approve or deny a tool call that waits for approval. */
export const approvalAction: InlineAction<ApprovalRequested> = {
  matches: (event): event is ApprovalRequested => event.type === 'approval-requested',
  isPending: (event, state) => state.pendingApprovals.some((pending) => pending.toolCallId === event.toolCallId),
  async answer(event, ctx) {
    const as = ctx.person !== undefined ? { name: ctx.person, from: ctx.personFrom } : undefined;
    const answer = await askApproval(ctx.prompter, event, ctx.style, as ? { as } : {});
    if (answer === undefined) return false;
    if (answer === 'skip') {
      ctx.note(ctx.style.dim('Skipped; the run keeps waiting. Decide later with the commands above.'));
      return true;
    }
    const options = {
      ...(ctx.person !== undefined ? { approver: ctx.person } : {}),
      ...('reason' in answer && answer.reason !== undefined ? { reason: answer.reason } : {}),
    };
    try {
      const record = answer.approved
        ? await ctx.run.approve(event.toolCallId, options)
        : await ctx.run.deny(event.toolCallId, options);
      if (record) ctx.out(formatDecision(record, ctx.style));
    } catch (error) {
      // Someone else decided first, or the run moved on: say so and keep watching.
      if (!RunRequestRejectedError.isInstance(error)) throw error;
      // The rejection can quote what a client or the run was sent: keep escape sequences in it inert.
      ctx.note(ctx.style.yellow(`Not recorded: ${terminalSafe(error.message)}`));
    }
    return true;
  },
};

type ElicitationRequested = Extract<RunEvent, { type: 'elicitation-requested' }>;

/** Rejected answers to one elicitation before it is left waiting (the run says why each time). */
const MAX_REJECTED_ANSWERS = 3;

/**
 * Answer an MCP elicitation field by field. The answer is checked before it is sent; if the run still rejects it,
 * its reason is shown and the person is asked again, unless the question is no longer pending (someone else
 * answered it, or it expired).
 */
export const elicitationAction: InlineAction<ElicitationRequested> = {
  matches: (event): event is ElicitationRequested => event.type === 'elicitation-requested',
  isPending: (event, state) => state.pendingElicitations.some((pending) => pending.id === event.id),
  async answer(event, ctx) {
    let rejection: string | undefined;
    for (let tries = 0; tries < MAX_REJECTED_ANSWERS; tries++) {
      const answer = await askElicitation(ctx.prompter, event, ctx.style, rejection);
      if (answer === undefined) return false;
      if (answer === 'skip') {
        ctx.note(ctx.style.dim('Skipped; the question keeps waiting. Answer later with the commands above.'));
        return true;
      }
      try {
        const record = await ctx.run.respondToElicitation(
          event.id,
          answer,
          ctx.person !== undefined ? { responder: ctx.person } : {},
        );
        if (record) ctx.out(formatElicitationAnswer(record, ctx.style, event.toolName));
        return true;
      } catch (error) {
        // The run ended meanwhile (someone else's answer let it finish): the watch shows how.
        const ended = RunRequestRejectedError.isInstance(error) && error.code === RefusalCode.RunEnded;
        if (ended || error instanceof WorkflowNotFoundError) {
          ctx.note(ctx.style.yellow('Not recorded: the run has ended.'));
          return true;
        }
        if (!RunRequestRejectedError.isInstance(error)) throw error;
        const state = await ctx.run.state();
        if (!elicitationAction.isPending(event, state)) {
          ctx.note(ctx.style.yellow(`Not recorded: ${terminalSafe(error.message)}`));
          return true;
        }
        rejection = `The run rejected that answer (nothing was recorded): ${error.message}`;
      }
    }
    ctx.note(ctx.style.yellow('Not recorded; the question keeps waiting. Answer later with the commands above.'));
    return true;
  },
};

/** Every inline action, in the order they are tried. */
export const INLINE_ACTIONS: readonly InlineAction[] = [
  approvalAction as unknown as InlineAction,
  elicitationAction as unknown as InlineAction,
];
