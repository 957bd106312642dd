// Carries out a parsed command against Temporal through AgentClient / AgentRun, writing what happened for a
// person. Every command returns its exit status; errors are thrown and explained by the caller.
import { userInfo } from 'node:os';
import type { AgentClient } from '../client/agent-client.js';
import type { AgentRun } from '../client/agent-run.js';
import type { RunStreamPart } from '../client/run-stream.js';
import { NoWorkerError } from '../client/errors/no-worker-error.js';
import { WorkerTimeoutError } from '../client/errors/worker-timeout-error.js';
import { RunRequestRejectedError } from '../client/errors/run-request-rejected-error.js';
import { verifySignedClaims } from '../mcp/signed-claims.js';
import type { JsonValue } from '../protocol/json.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import {
  TERMINAL_EVENT_TYPES,
  type ElicitationContent,
  type ElicitationRecord,
  type RunEvent,
  type RunState,
} from '../protocol/index.js';
import type { ClientCommand, Command } from './args.js';
import { CliFailure } from './errors/cli-failure.js';
import { explainError, type ConnectionInfo } from './explain-error.js';
import {
  createEventFormatter,
  formatDecision,
  formatListHeader,
  formatListedRun,
  formatOutcome,
  formatState,
} from './format.js';
import { elicitationDetails, formatElicitationAnswer } from './format-elicitation.js';
import { INLINE_ACTIONS, type InlineContext } from './inline-actions.js';
import { printedParts, RunPrinter, type WatchPosition } from './live-text.js';
import { chat } from './chat-command.js';
import { uiCommand } from './ui-command.js';
import type { Prompter } from './prompter.js';
import { listRuns, runOutcome } from './run-overview.js';
import type { Style } from './style.js';
import { shellQuote, terminalSafe, terminalSafeLine } from './terminal-text.js';
import { CLI_COMMAND } from './usage.js';

/** What a command runs with. */
export interface CommandContext {
  client: AgentClient;
  connection: ConnectionInfo;
  /** Writes one line (or several) of results to stdout. */
  out(text: string): void;
  /** Writes text to stdout as is (the model's text as it is written, no newline added). */
  write(text: string): void;
  /** Writes notes and warnings to stderr. */
  note(text: string): void;
  style: Style;
  env: Record<string, string | undefined>;
  /** Aborts a watch (Ctrl-C). */
  signal?: AbortSignal;
  /** How long `explainFailure` waits for a failed run's result. */
  requestTimeoutMs: number;
  /** Asks a person to decide pending approvals inline during a watch; absent when nobody is at a terminal. */
  prompter?: Prompter;
  /** Who decides inline (`--approver`); default: see {@link personAtTerminal}. */
  approver?: string;
}

/** Exit status of a watch interrupted by the user (as a shell reports SIGINT). */
export const INTERRUPTED = 130;

/** Runs one command (not `help`) and resolves with the exit status. */
export async function runCommand(command: ClientCommand, ctx: CommandContext): Promise<number> {
  const runId = 'runId' in command ? command.runId : undefined;
  try {
    return await dispatch(command, ctx);
  } catch (error) {
    throw explainError(error, { ...ctx.connection, ...(runId !== undefined ? { runId } : {}) });
  }
}

/** How long `list` waits for running runs to say what they wait for (all asked at once). */
const LIST_STATE_TIMEOUT_MS = 2_000;

async function dispatch(command: ClientCommand, ctx: CommandContext): Promise<number> {
  const { style } = ctx;
  switch (command.name) {
    case 'start': {
      const run = await ctx.client.start(command.agent, command.input, {
        ...(command.userId !== undefined ? { userId: command.userId } : {}),
        ...(command.conversationId !== undefined ? { conversationId: command.conversationId } : {}),
        ...(command.context !== undefined ? { context: command.context } : {}),
        ...(command.workflowId !== undefined ? { workflowId: command.workflowId } : {}),
      });
      ctx.out(
        `Started run ${style.bold(terminalSafeLine(run.id))} of agent '${terminalSafeLine(command.agent)}' on task ` +
          `queue '${terminalSafeLine(ctx.connection.taskQueue)}'.`,
      );
      if (!command.watch) {
        ctx.out(style.dim(`Watch it: ${CLI_COMMAND} watch ${shellQuote(run.id)}`));
        return 0;
      }
      return await watch(run, 0, watching(command, ctx));
    }
    case 'chat':
      return await chat(command, ctx, watch, defaultPerson(ctx.env));
    case 'ui':
      return await uiCommand(command, ctx, defaultPerson(ctx.env));
    case 'watch':
      return await watch(ctx.client.getRun(command.runId), command.after, watching(command, ctx));
    case 'approve':
    case 'deny': {
      const run = ctx.client.getRun(command.runId);
      const options = {
        ...(command.reason !== undefined ? { reason: command.reason } : {}),
        approver: command.approver ?? defaultPerson(ctx.env),
      };
      const record =
        command.name === 'approve'
          ? await run.approve(command.toolCallId, options)
          : await run.deny(command.toolCallId, options);
      const decision = record ?? {
        toolName: command.toolCallId,
        approved: command.name === 'approve',
        ...options,
      };
      ctx.out(`${formatDecision(decision, style)} ${style.dim(`(tool call ${terminalSafeLine(command.toolCallId)})`)}`);
      return 0;
    }
    case 'answer':
      return await answer(ctx.client.getRun(command.runId), command, ctx);
    case 'submit': {
      const run = ctx.client.getRun(command.runId);
      await run.submitToolResult(command.toolCallId, command.output, command.isError ? { isError: true } : {});
      ctx.out(
        `Submitted ${command.isError ? 'an error' : 'the result'} for tool call ${terminalSafeLine(command.toolCallId)}.`,
      );
      return 0;
    }
    case 'cancel': {
      const run = ctx.client.getRun(command.runId);
      // Temporal accepts a cancellation of a closed workflow without complaint; a person should hear it ended.
      const { status } = await run.handle.describe();
      if (status.name !== 'RUNNING') {
        throw new CliFailure(
          `Run '${terminalSafeLine(command.runId)}' has already ended (${status.name}); there is nothing to cancel.`,
        );
      }
      await run.cancel();
      ctx.out(`Cancellation requested for run ${terminalSafeLine(command.runId)}.`);
      ctx.out(style.dim(`Watch it end: ${CLI_COMMAND} watch ${shellQuote(command.runId)}`));
      return 0;
    }
    case 'state': {
      const run = ctx.client.getRun(command.runId);
      const state = await run.state();
      // JSON escapes control characters, so --json output is terminal-safe too.
      if (command.json) {
        ctx.out(JSON.stringify(state, null, 2));
        return 0;
      }
      const outcome = await runOutcome(run, state);
      const verifyClaims = claimsVerifier(ctx.env.DURABLE_AGENT_CLAIMS_KEY);
      ctx.out(
        [
          formatState(command.runId, state, { style, ...(verifyClaims ? { verifyClaims } : {}) }),
          ...formatOutcome(outcome, { style }),
        ].join('\n'),
      );
      return 0;
    }
    case 'list': {
      const rows = await listRuns(ctx.client, {
        ...(command.query !== undefined ? { query: command.query } : {}),
        limit: command.limit,
        stateTimeoutMs: LIST_STATE_TIMEOUT_MS,
      });
      if (rows.length > 0) ctx.out(formatListHeader(style));
      for (const row of rows) ctx.out(formatListedRun(row, style));
      if (rows.length === 0) {
        ctx.note(
          `No runs${command.query ? ' match the query' : ''} in namespace '${terminalSafeLine(ctx.connection.namespace)}'.`,
        );
      }
      return 0;
    }
  }
}

/**
 * Prints a run's events until its terminal event, and the model's text as it is written when the run streams it (a
 * retried model call that starts its step over is marked, then its text is written again). A worker that is down
 * (killed, restarting) only delays the stream: it is read again and printed from the last printed sequence number
 * and stream offset, so nothing is lost or repeated. With a
 * prompter (a person at a terminal), a pending approval or elicitation is offered for an answer as it comes.
 * Exit status: 0 when the run finished, 1 when it failed or was cancelled, 130 when interrupted.
 */
export async function watch(run: AgentRun, after: number, ctx: CommandContext): Promise<number> {
  const format = createEventFormatter({ style: ctx.style, runId: run.id, timestamps: true, command: CLI_COMMAND });
  const runName = terminalSafeLine(run.id);
  // A run that already ended with no events after `after` would otherwise be polled forever.
  const state = await run.state().catch((error: unknown) => {
    if (!isUnanswered(error)) throw error;
    ctx.note(ctx.style.yellow(`${(error as Error).message}\nWaiting for a worker…`));
    return undefined;
  });
  if (state && isEnded(state) && state.lastEventSeq <= after) {
    ctx.note(`Run '${runName}' has ended (${state.status}); no events after #${after}.`);
    return state.status === 'completed' ? 0 : 1;
  }

  let terminal: RunEvent['type'] | undefined;
  let failure: string | undefined;
  let prompter = ctx.prompter;
  let waitingNoted = state === undefined;
  // A running run is read from its stream (the model's text as it is written); an ended one from its recorded events.
  let ended = state !== undefined && isEnded(state);
  const position: WatchPosition = { lastSeq: after, lastOffset: -1 };
  const printer = new RunPrinter({ format, style: ctx.style, timestamps: true });
  const write = (text: string) => {
    if (text !== '') ctx.write(text);
  };
  while (terminal === undefined && !ctx.signal?.aborted) {
    try {
      const signal = ctx.signal ? { signal: ctx.signal } : {};
      const parts = ended ? eventParts(run.events({ after: position.lastSeq, ...signal })) : run.parts(signal);
      for await (const printed of printedParts(parts, printer, position, { offsets: !ended })) {
        write(printed.text);
        const event = printed.event;
        if (!event) continue;
        waitingNoted = false;
        if (event.type === 'failed') failure = event.message;
        if (TERMINAL_EVENT_TYPES.has(event.type)) {
          terminal = event.type;
          break;
        }
        if (prompter && !(await offerInline(run, event, { ...ctx, prompter }))) prompter = undefined;
      }
      // The stream ended with no terminal event: a run Temporal terminated (or timed out) records none.
      if (terminal === undefined && !ctx.signal?.aborted) {
        const { status } = await run.handle.describe();
        if (status.name !== 'RUNNING' && status.name !== 'CONTINUED_AS_NEW') {
          write(printer.close());
          ctx.note(`Run '${runName}' ended (${status.name}) without recording how.`);
          return 1;
        }
      }
    } catch (error) {
      if (!isUnanswered(error) || ctx.signal?.aborted) throw error;
      write(printer.close());
      // Said once per outage, not every time the query times out again.
      if (!waitingNoted) {
        ctx.note(ctx.style.yellow(`${(error as Error).message}\nStill waiting (after event #${position.lastSeq})…`));
        waitingNoted = true;
      }
      // A run that ended meanwhile recorded its events: read them, with no worker.
      ended ||= (await run.finalRecord().catch(() => undefined)) !== undefined;
    }
  }
  write(printer.close());
  if (terminal === undefined) return INTERRUPTED;
  if (terminal === 'failed') await explainFailure(run, ctx, failure ?? '');
  return terminal === 'finished' ? 0 : 1;
}

/** Recorded events as stream parts (their offset is their `seq`). */
async function* eventParts(events: AsyncIterable<RunEvent>): AsyncGenerator<RunStreamPart> {
  for await (const event of events) yield { type: 'event', offset: event.seq, event };
}

/**
 * Offers the person a decision on `event` when an inline action handles it and the run still waits for it.
 * Resolves `false` when nobody is there to ask any more (input ended).
 */
async function offerInline(
  run: AgentRun,
  event: RunEvent,
  ctx: CommandContext & { prompter: Prompter },
): Promise<boolean> {
  const action = INLINE_ACTIONS.find((candidate) => candidate.matches(event));
  if (!action) return true;
  // A watch replays old events: ask only about what the run waits for now.
  const state = await run.state();
  if (!action.isPending(event, state)) return true;
  const inline: InlineContext = {
    run,
    prompter: ctx.prompter,
    out: (text) => ctx.out(text),
    note: (text) => ctx.note(text),
    style: ctx.style,
    ...personAtTerminal(ctx.env, ctx.approver),
  };
  return await action.answer(event, inline);
}

/** No worker answered a query or update in time (none polls, or the ones that poll did not answer). */
function isUnanswered(error: unknown): boolean {
  return NoWorkerError.isInstance(error) || WorkerTimeoutError.isInstance(error);
}

/**
 * The `failed` event carries the top-level message (often just "Activity task failed"); the reason a person needs
 * is at the bottom of the failure's cause chain, which the workflow result has.
 */
async function explainFailure(run: AgentRun, ctx: CommandContext, shown: string): Promise<void> {
  try {
    await ctx.client.temporal.connection.withDeadline(Date.now() + ctx.requestTimeoutMs, () => run.handle.result());
  } catch (error) {
    let root: unknown = error;
    while (root instanceof Error && root.cause instanceof Error) root = root.cause;
    // Said once: the failed event often carries the root cause's message already ("Unknown agent …").
    if (root instanceof Error && root !== error && !shown.includes(root.message)) {
      ctx.out(`    ${ctx.style.red('cause:')} ${terminalSafe(root.message)}`);
    }
  }
}

/**
 * Answers an elicitation. The run checks the answer against its question and records nothing it rejects; a rejection
 * is explained with the question's fields and the command that answers it, read from the run.
 */
async function answer(
  run: AgentRun,
  command: Extract<Command, { name: 'answer' }>,
  ctx: CommandContext,
): Promise<number> {
  const responder = command.responder ?? defaultPerson(ctx.env);
  // `accept` alone takes every field's default; the run names a required field that has none.
  const content = command.action === 'accept' ? ((command.content ?? {}) as ElicitationContent) : undefined;
  let record: ElicitationRecord | undefined;
  try {
    record = await run.respondToElicitation(
      command.elicitationId,
      { action: command.action, ...(content !== undefined ? { content } : {}) },
      responder !== undefined ? { responder } : {},
    );
  } catch (error) {
    // A run that has ended is explained like any request to it (see explain-error.ts).
    if (!RunRequestRejectedError.isInstance(error) || error.code === RefusalCode.RunEnded) throw error;
    throw new CliFailure(await rejectedAnswer(run, command.elicitationId, error.message), { cause: error });
  }
  const shown = record ?? {
    id: command.elicitationId,
    action: command.action,
    ...(responder !== undefined ? { responder } : {}),
  };
  ctx.out(formatElicitationAnswer(shown, ctx.style));
  return 0;
}

/** Why the run rejected an answer, and what to do: the question's fields and commands, or what the run waits for. */
async function rejectedAnswer(run: AgentRun, id: string, reason: string): Promise<string> {
  const lines = [`Rejected by run '${terminalSafeLine(run.id)}': ${reason} Nothing was recorded.`];
  // Best effort: the rejection is the answer; the state only helps to fix it.
  const state = await run.state().catch(() => undefined);
  const pending = state?.pendingElicitations.find((elicitation) => elicitation.id === id);
  if (pending) {
    lines.push(
      `The question of ${terminalSafeLine(pending.toolName)} (MCP server ${terminalSafeLine(pending.serverName)}):`,
      ...elicitationDetails(pending, { runId: run.id, indent: '  ' }),
    );
  } else {
    lines.push(`See what the run waits for: ${CLI_COMMAND} state ${shellQuote(run.id)}`);
  }
  return lines.join('\n');
}

function isEnded(state: RunState): boolean {
  return state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled';
}

/** Who is at this terminal, recorded as the approver or responder unless one is given. */
function defaultPerson(env: Record<string, string | undefined>): string | undefined {
  return env.USER ?? env.USERNAME ?? env.LOGNAME;
}

/** The context a `watch` (or `start --watch`) runs in: no prompter with --no-prompt, the approver it names. */
function watching(command: { noPrompt: boolean; approver?: string }, ctx: CommandContext): CommandContext {
  return {
    ...ctx,
    ...(command.noPrompt ? { prompter: undefined } : {}),
    ...(command.approver !== undefined ? { approver: command.approver } : {}),
  };
}

/**
 * Who decides at the terminal, and where the name comes from: `--approver`, else `$USER` (`$USERNAME`, `$LOGNAME`),
 * else the OS account running the CLI.
 */
export function personAtTerminal(
  env: Record<string, string | undefined>,
  approver?: string,
): { person: string | undefined; personFrom?: string } {
  if (approver !== undefined) return { person: approver, personFrom: '--approver' };
  for (const name of ['USER', 'USERNAME', 'LOGNAME'] as const) {
    const value = env[name];
    if (value) return { person: value, personFrom: `$${name}` };
  }
  try {
    return { person: userInfo().username, personFrom: 'OS user' };
  } catch {
    // No account name (a container user without a passwd entry): the decision records no approver.
    return { person: undefined };
  }
}

/** With the key web handlers sign claims with, `state` can say whether a run's signed claims verify. */
function claimsVerifier(key: string | undefined) {
  if (!key) return undefined;
  const verify = verifySignedClaims(key);
  return (context: Record<string, JsonValue>) => {
    const identity = verify({ context: new Map(Object.entries(context)) });
    // The hook of `verifySignedClaims` is synchronous; a promise would be another hook's.
    return identity && !(identity instanceof Promise) ? identity : undefined;
  };
}
