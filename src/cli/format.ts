// How runs look in a terminal: events, state and run lists as plain strings. Pure (no I/O, no clock): the CLI and
// the demo print what these return, and the unit tests compare them as text. Everything a run reports (model text,
// tool names and ids, arguments, errors) is untrusted: it is made terminal-safe before it is styled, and the ids
// in suggested commands are shell-quoted from their raw values, so a command works as printed.
import type { ApprovalRecord, JsonValue, RunEvent, RunState } from '../protocol/index.js';
import { elicitationDetails, formatElicitationAnswer } from './format-elicitation.js';
import { progressBar, progressFraction } from './progress.js';
import { PLAIN, type Style } from './style.js';
import { shellQuote, terminalSafe, terminalSafeDeep, terminalSafeLine } from './terminal-text.js';
import { CLI_COMMAND } from './usage.js';

/** Options of the formatters. */
export interface FormatOptions {
  /** Colours; default none. */
  style?: Style;
  /** The run's id: when given, a pending approval or tool result is followed by the command that answers it. */
  runId?: string;
  /** Prefix each event with its time of day (UTC, `HH:MM:SS`). Default false. */
  timestamps?: boolean;
  /** Longest JSON shown for arguments and outputs before it is cut. Default 160. */
  maxValueChars?: number;
  /** The command in hints. Default `npx durable-agent` (works in a clone and where the package is installed). */
  command?: string;
  /**
   * Checks a run's signed claims (the CLI's `DURABLE_AGENT_CLAIMS_KEY`): the identity they verify to, else
   * `undefined`. Without it a signed token is shown as not verified.
   */
  verifyClaims?: (context: Record<string, JsonValue>) => { userId?: string } | undefined;
}

/** Formats one run event (one or more lines, no trailing newline). */
export type EventFormatter = (event: RunEvent) => string;

const DEFAULT_MAX_VALUE_CHARS = 160;
const INDENT = '    ';

/**
 * An event formatter for one run. It remembers tool names from `tool-call` and `elicitation-requested` events,
 * because `tool-progress` and `elicitation-answered` events carry only an id.
 */
export function createEventFormatter(options: FormatOptions = {}): EventFormatter {
  const style = options.style ?? PLAIN;
  const max = options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS;
  const command = commandLine(options.command);
  const toolNames = new Map<string, string>();
  const elicitationTools = new Map<string, string>();
  const value = (v: JsonValue | undefined) => formatValue(v, max);
  const callId = (id: string) => style.dim(`(${terminalSafeLine(id)})`);
  const name = (text: string) => style.cyan(terminalSafeLine(text));
  const hint = (line: string) => (options.runId ? `\n${INDENT}${style.dim(line)}` : '');

  // `event` is terminal-safe for display; `raw` keeps the exact ids for the commands a person may copy.
  const body = (event: RunEvent, raw: RunEvent): string => {
    switch (event.type) {
      case 'run-started':
        return `run started · agent ${style.bold(event.agentName)}`;
      case 'retriever-error':
        return style.yellow(`retriever failed (the run goes on without context): ${event.message}`);
      case 'step-started':
        return style.bold(`step ${event.step}`);
      case 'text':
        return `model says: ${indentLines(event.text)}`;
      case 'tool-call':
        toolNames.set(event.toolCallId, event.toolName);
        return `call ${name(event.toolName)} ${value(event.args)} ${callId(event.toolCallId)}`;
      case 'tool-started':
        toolNames.set(event.toolCallId, event.toolName);
        return `running ${name(event.toolName)} ${callId(event.toolCallId)}`;
      case 'tool-progress': {
        const tool = name(toolNames.get(event.toolCallId) ?? event.toolCallId);
        const fraction = progressFraction(event.value);
        const bar = fraction === undefined ? `progress #${event.progressSeq}` : style.magenta(progressBar(fraction));
        return `${tool} ${bar} ${style.dim(value(event.value))}`;
      }
      case 'tool-result':
        return toolResult(event, style, value);
      case 'approval-requested': {
        toolNames.set(event.toolCallId, event.toolName);
        const id = (raw as typeof event).toolCallId;
        return (
          `${style.alert(' APPROVAL NEEDED ')} ${name(event.toolName)} ${value(event.args)} ` +
          `${callId(event.toolCallId)}` +
          hint(`approve: ${command('approve', options.runId ?? '', id)}`) +
          hint(`deny:    ${command('deny', options.runId ?? '', id)} --reason "..."`)
        );
      }
      case 'approval-decided':
        return formatDecision(event, style);
      case 'approval-refused': {
        const who = event.approver ? ` by ${style.bold(terminalSafeLine(event.approver))}` : '';
        return (
          style.yellow(`decision${who} on ${name(event.toolName)} refused: ${event.reason}`) +
          style.dim(' (the call still waits for approval)')
        );
      }
      case 'tool-result-requested': {
        toolNames.set(event.toolCallId, event.toolName);
        const id = (raw as typeof event).toolCallId;
        return (
          `${style.alert(' RESULT NEEDED ')} client-side tool ${name(event.toolName)} ${value(event.args)} ` +
          `${callId(event.toolCallId)}` +
          hint(`answer: ${command('submit', options.runId ?? '', id)} '<output JSON>'`)
        );
      }
      case 'elicitation-requested': {
        // The raw event: its id and field names go into the printed commands exactly (shell-quoted there).
        const request = raw as typeof event;
        elicitationTools.set(request.id, request.toolName);
        toolNames.set(request.toolCallId, request.toolName);
        const details = elicitationDetails(request, {
          style,
          ...(options.runId !== undefined ? { runId: options.runId } : {}),
          ...(options.command !== undefined ? { command: options.command } : {}),
        });
        return (
          `${style.alert(' ANSWER NEEDED ')} ${name(event.toolName)} asks a question ` +
          style.dim(
            `(MCP server ${terminalSafeLine(event.serverName)} · elicitation ${terminalSafeLine(event.id)} · ` +
              `tool call ${terminalSafeLine(event.toolCallId)})`,
          ) +
          `\n${details.join('\n')}`
        );
      }
      case 'elicitation-answered':
        return formatElicitationAnswer(event, style, elicitationTools.get((raw as typeof event).id));
      case 'mcp-tools-listed': {
        const skipped = event.skipped > 0 ? style.yellow(`, ${event.skipped} skipped (see the worker's log)`) : '';
        const tools = `${event.tools} tool${event.tools === 1 ? '' : 's'}`;
        const late = event.late ? style.yellow(' (late: offered from the next model call)') : '';
        return style.dim(`MCP server ${terminalSafeLine(event.server)}: ${tools}`) + late + skipped;
      }
      case 'mcp-server-failed':
        return style.yellow(
          `MCP server ${terminalSafeLine(event.server)} failed${event.late ? ' late' : ''} ` +
            `(${terminalSafeLine(event.reason)}): ${event.message} · the run goes on without its tools`,
        );
      case 'mcp-tools-collided': {
        const list = event.collisions.map(
          (c) => `${terminalSafeLine(c.name)} (${c.tools.map(terminalSafeLine).join(', ')})`,
        );
        const more = event.more > 0 ? ` and ${event.more} more` : '';
        return style.yellow(
          `MCP tools left out, their names collide: ${list.join('; ')}${more} · rename a server so its ` +
            '<server>_<tool> names differ',
        );
      }
      case 'step-finished':
        return style.dim(
          `step ${event.step} done · ${event.finishReason} · ${event.usage.totalTokens} tokens ` +
            `(${event.usage.inputTokens} in, ${event.usage.outputTokens} out)`,
        );
      case 'continued-as-new':
        return style.dim(`continued as new (generation ${event.generation})`);
      case 'finished':
        // The final text was already shown by the last step's `text` event.
        return `${style.green(style.bold('finished'))} ${style.dim(`(${event.stopReason}, ${event.finishReason})`)}`;
      case 'cancelled':
        return style.yellow(style.bold('cancelled'));
      case 'failed':
        return `${style.red(style.bold('failed'))}: ${event.message}${event.errorType ? style.dim(` [${event.errorType}]`) : ''}`;
      default:
        // Every type this version knows is handled above (a new one fails to typecheck here); one from a newer worker
        // is shown rather than dropped.
        return unknownEvent(event satisfies never, value);
    }
  };

  return (raw) => {
    const event = terminalSafeDeep(raw);
    const time = options.timestamps ? `${style.dim(timeOfDay(event.at))} ` : '';
    return `${time}${style.dim(`#${String(event.seq).padEnd(3)}`)} ${body(event, raw)}`;
  };
}

function unknownEvent(event: unknown, value: (v: JsonValue) => string): string {
  return `${terminalSafeLine(String((event as { type?: unknown }).type))} ${value(event as JsonValue)}`;
}

/** Builds a printed command: the CLI, then each argument shell-quoted, so it works when pasted. */
function commandLine(cli = CLI_COMMAND): (...args: string[]) => string {
  return (...args) => [cli, ...args.map(shellQuote)].join(' ');
}

type ToolResultEvent = Extract<RunEvent, { type: 'tool-result' }>;

function toolResult(event: ToolResultEvent, style: Style, value: (v: JsonValue) => string): string {
  const name = style.cyan(terminalSafeLine(event.toolName));
  switch (event.outcome) {
    case 'ok':
      return `${style.green('✓')} ${name} → ${value(event.output)}`;
    case 'client-result':
      return `${style.green('✓')} ${name} (client result) → ${value(event.output)}`;
    case 'denied':
      return `${style.yellow('⊘')} ${name} not run: ${plainText(event.output)}`;
    case 'invalid':
      return `${style.red('✗')} ${name} invalid call: ${plainText(event.output)}`;
    case 'error':
      return `${style.red('✗')} ${name} failed: ${errorMessage(event.output)}`;
    default:
      return `${name} ${event.outcome as string} → ${value(event.output)}`;
  }
}

/** One line for an approval decision: who decided, and why. */
export function formatDecision(
  raw: Pick<ApprovalRecord, 'toolName' | 'approved' | 'approver' | 'reason' | 'timedOut'>,
  style: Style = PLAIN,
): string {
  const decision = terminalSafeDeep(raw);
  const verdict = decision.timedOut
    ? style.yellow('approval timed out')
    : decision.approved
      ? style.green('approved')
      : style.red('denied');
  const who = decision.approver ? ` by ${style.bold(decision.approver)}` : '';
  const why = decision.reason ? `: ${decision.reason}` : '';
  return `${verdict} ${style.cyan(terminalSafeLine(decision.toolName))}${who}${why}`;
}

/** A run's state as a short report: status, pending decisions (with the commands that answer them), running tools. */
export function formatState(rawRunId: string, rawState: RunState, options: FormatOptions = {}): string {
  const style = options.style ?? PLAIN;
  const max = options.maxValueChars ?? DEFAULT_MAX_VALUE_CHARS;
  const command = commandLine(options.command);
  const runId = terminalSafeLine(rawRunId);
  const state = terminalSafeDeep(rawState);
  const status = {
    running: style.cyan,
    waiting: style.yellow,
    completed: style.green,
    failed: style.red,
    cancelled: style.yellow,
  }[state.status];
  const lines = [
    `run ${style.bold(runId)}`,
    `  status:   ${(status ?? ((s: string) => s))(state.status)} · ${state.step} step${state.step === 1 ? '' : 's'} done`,
    `  tokens:   ${state.usage.totalTokens} (${state.usage.inputTokens} in, ${state.usage.outputTokens} out)`,
    `  messages: ${state.messageCount} · last event #${state.lastEventSeq}`,
    ...claimLines(state.claims, rawState.claims, max, style, options.verifyClaims),
  ];
  if (state.pendingApprovals.length > 0) {
    lines.push(style.alert(' pending approvals '));
    for (const [i, approval] of state.pendingApprovals.entries()) {
      const expires = approval.expiresAt ? ` · expires ${approval.expiresAt}` : '';
      const id = rawState.pendingApprovals[i]!.toolCallId;
      lines.push(
        `  ${terminalSafeLine(approval.toolCallId)}  ${style.cyan(terminalSafeLine(approval.toolName))} ${formatValue(approval.args, max)}`,
        style.dim(`    step ${approval.step} · requested ${approval.requestedAt}${expires}`),
        style.dim(`    ${command('approve', rawRunId, id)}  |  ${command('deny', rawRunId, id)}`),
      );
    }
  }
  if (state.pendingToolResults.length > 0) {
    lines.push(style.alert(' waiting for client-side tool results '));
    for (const [i, call] of state.pendingToolResults.entries()) {
      const id = rawState.pendingToolResults[i]!.toolCallId;
      lines.push(
        `  ${terminalSafeLine(call.toolCallId)}  ${style.cyan(terminalSafeLine(call.toolName))} ${formatValue(call.args, max)}`,
        style.dim(`    ${command('submit', rawRunId, id)} '<output JSON>'`),
      );
    }
  }
  if (rawState.pendingElicitations.length > 0) {
    lines.push(style.alert(' pending elicitations '));
    // From the raw state: the details make every string terminal-safe and build the commands from the exact ids.
    for (const elicitation of rawState.pendingElicitations) {
      lines.push(
        `  ${terminalSafeLine(elicitation.id)}  ${style.cyan(terminalSafeLine(elicitation.toolName))} ` +
          style.dim(
            `(MCP server ${terminalSafeLine(elicitation.serverName)} · tool call ${terminalSafeLine(elicitation.toolCallId)})`,
          ),
        ...elicitationDetails(elicitation, {
          style,
          runId: rawRunId,
          times: true,
          ...(options.command !== undefined ? { command: options.command } : {}),
        }),
      );
    }
  }
  if (state.runningTools.length > 0) {
    lines.push('  running tools:');
    for (const tool of state.runningTools) {
      // Newer runtimes report each running tool's latest progress; show it as a bar when it states a fraction.
      const progress = (tool as { progress?: { value?: JsonValue } | JsonValue }).progress;
      const latest = isProgressRecord(progress) ? progress.value : progress;
      const fraction = progressFraction(latest);
      const shown =
        fraction !== undefined
          ? ` ${progressBar(fraction)}`
          : latest !== undefined
            ? ` ${formatValue(latest, max)}`
            : '';
      lines.push(
        `  ${terminalSafeLine(tool.toolCallId)}  ${style.cyan(terminalSafeLine(tool.toolName))} since ${tool.startedAt}${shown}`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * Compact JSON of a value, cut at `max` characters with an ellipsis. Strings are shown quoted. Terminal-safe:
 * JSON escapes C0 controls, and what it leaves (C1 controls, bidirectional overrides) is removed.
 */
export function formatValue(value: unknown, max = DEFAULT_MAX_VALUE_CHARS): string {
  let text: string;
  try {
    text = terminalSafe(JSON.stringify(value) ?? String(value));
  } catch {
    text = terminalSafe(String(value));
  }
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

function isProgressRecord(value: unknown): value is { value: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'seq' in value && 'value' in value;
}

/** Text of a denial reason or validation message, which the runtime records as a string. */
function plainText(output: JsonValue): string {
  return typeof output === 'string' ? output : formatValue(output);
}

/** The message of a tool error result (`{ error: true, message, ... }`), else the output itself. */
function errorMessage(output: JsonValue): string {
  if (output !== null && typeof output === 'object' && !Array.isArray(output) && typeof output.message === 'string') {
    return output.message;
  }
  return plainText(output);
}

function indentLines(text: string): string {
  return text.replace(/\n/g, `\n${INDENT}`);
}

function timeOfDay(iso: string): string {
  const match = /T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match?.[1] ?? iso;
}

/** The answer and decisions lines `state` adds under a run's state. */
export function formatOutcome(
  outcome: { answer?: string; failure?: string; decisions: ReadonlyArray<DecisionLine> },
  options: FormatOptions = {},
): string[] {
  const style = options.style ?? PLAIN;
  const lines: string[] = [];
  if (outcome.failure !== undefined) lines.push(`  ${style.red('failure:')}  ${terminalSafeLine(outcome.failure)}`);
  if (outcome.answer !== undefined) {
    const answer = terminalSafe(outcome.answer).trim();
    lines.push(`  answer:   ${answer.length > 2_000 ? `${answer.slice(0, 1_999)}…` : answer}`);
  }
  if (outcome.decisions.length > 0) {
    lines.push('  decisions:');
    for (const decision of outcome.decisions) {
      const verb = decision.timedOut ? 'timed out' : decision.approved ? 'approved' : 'denied';
      const paint = decision.approved ? style.green : style.red;
      const by = decision.approver
        ? ` by ${terminalSafeLine(decision.approver)}${decision.approverVerified ? ' (verified)' : ' (as claimed)'}`
        : '';
      const why = decision.reason ? `: ${terminalSafeLine(decision.reason)}` : '';
      lines.push(`    ${paint(verb)} ${style.cyan(terminalSafeLine(decision.toolName))}${by}${why}`);
    }
  }
  return lines;
}

/** A decision as {@link formatOutcome} shows it. */
export interface DecisionLine {
  toolName: string;
  approved: boolean;
  reason?: string;
  approver?: string;
  approverVerified?: boolean;
  timedOut?: boolean;
}

/** The header line of `durable-agent list`, aligned with {@link formatListedRun}. */
export function formatListHeader(style: Style = PLAIN): string {
  return style.dim(
    `${'STARTED'.padEnd(24)}  ${'STATUS'.padEnd(LIST_STATUS_WIDTH)}  ${'AGENT'.padEnd(LIST_AGENT_WIDTH)}  RUN`,
  );
}

const LIST_STATUS_WIDTH = 23;
const LIST_AGENT_WIDTH = 16;

/** One row of `durable-agent list`: start time, status (what a running run waits for), agent, run id. */
export function formatListedRun(
  raw: { workflowId: string; status: string; startTime: Date; agent?: string },
  style: Style = PLAIN,
): string {
  const status = terminalSafeLine(raw.status);
  const paint =
    status === 'completed'
      ? style.green
      : status.startsWith('waiting')
        ? style.yellow
        : status === 'running'
          ? style.cyan
          : style.red;
  const agent = terminalSafeLine(raw.agent ?? '?');
  return (
    `${style.dim(raw.startTime.toISOString())}  ${paint(status.padEnd(LIST_STATUS_WIDTH))}  ` +
    `${agent.padEnd(LIST_AGENT_WIDTH)}  ${terminalSafeLine(raw.workflowId)}`
  );
}

/**
 * A run's `userId` and `context` labelled as what they are: claims of whoever started the run. A signed claims
 * token counts as verified only when `verify` (a key) checks it, on the raw, untouched context.
 */
function claimLines(
  claims: RunState['claims'],
  raw: RunState['claims'],
  max: number,
  style: Style,
  verify: FormatOptions['verifyClaims'],
): string[] {
  if (!claims || !raw) return [];
  const lines: string[] = [];
  if (claims.userId !== undefined) lines.push(`  claimed user:    ${terminalSafeLine(claims.userId)}`);
  const context = claims.context;
  const isObject = context !== null && typeof context === 'object' && !Array.isArray(context);
  if (isObject && Object.keys(context).length === 0) return lines;
  lines.push(`  claimed context: ${formatValue(context, max)}`);
  const rawContext = raw.context as Record<string, JsonValue>;
  if (isObject && typeof rawContext.claims === 'string') {
    const verified = verify?.(rawContext);
    lines.push(
      verified
        ? style.green(
            `    signed claims: verified${verified.userId !== undefined ? ` (user ${terminalSafeLine(verified.userId)})` : ''}`,
          )
        : style.dim(
            verify
              ? '    signed claims: do not verify with DURABLE_AGENT_CLAIMS_KEY (or expired)'
              : "    signed claims: checked by the worker's verifyIdentity, not verified here",
          ),
    );
  }
  return lines;
}
