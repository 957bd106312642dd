// How a pending MCP elicitation looks in a terminal: the server's question, the fields it asks for (type, limits,
// options, default, description), when it expires, and the commands that answer it. The request comes from an MCP
// server: every string of it is made terminal-safe for display, while the printed commands are built from the raw
// id and field names and shell-quoted, so they answer exactly this question when pasted.
import type { ElicitationRecord, JsonObject, JsonValue, RunEventBody } from '../protocol/index.js';
import { elicitationFields, type ElicitationField } from './elicitation-fields.js';
import { PLAIN, type Style } from './style.js';
import { shellQuote, terminalSafe, terminalSafeLine } from './terminal-text.js';
import { CLI_COMMAND } from './usage.js';

/** An elicitation as its `elicitation-requested` event or `run.state().pendingElicitations` carries it. */
export type ElicitationView = Omit<Extract<RunEventBody, { type: 'elicitation-requested' }>, 'type'> & {
  requestedAt?: string;
  expiresAt?: string;
};

/** Options of {@link elicitationDetails}. */
export interface ElicitationFormatOptions {
  style?: Style;
  /** The run's id: when given, the commands that answer the question follow. */
  runId?: string;
  /** The command in hints. Default `npx durable-agent`. */
  command?: string;
  /** Prefix of every line. Default four spaces. */
  indent?: string;
  /** Say when it was asked and when it expires (the state has these; an event has its own time). */
  times?: boolean;
}

/** Longest question shown (the MCP layer cuts it there too; a run takes what any worker sends). */
const MAX_QUESTION_CHARS = 4000;
/** Fields listed; the rest are counted (`state --json` has them all, and the accept command needs no list). */
const MAX_LISTED_FIELDS = 40;
/** Longest title or description shown for a field; the rest is cut (a server may send a lot). */
const MAX_NOTE_CHARS = 200;
/** Options listed in a field's summary; a longer list ends with how many more there are. */
const MAX_LISTED_OPTIONS = 12;

/**
 * The lines under an elicitation's heading: the question, its fields, optionally its times, and (given the run id)
 * the commands that accept, decline or cancel it.
 */
export function elicitationDetails(request: ElicitationView, options: ElicitationFormatOptions = {}): string[] {
  const style = options.style ?? PLAIN;
  const indent = options.indent ?? '    ';
  const fields = elicitationFields(request.requestedSchema);
  const question = cut(terminalSafe(request.message), MAX_QUESTION_CHARS).replace(/\n/g, `\n${indent}          `);
  const lines = [`${indent}${style.bold('question:')} ${question}`];
  if (fields.length === 0) lines.push(`${indent}fields:   none (accept, decline or cancel)`);
  else lines.push(`${indent}fields:`, ...fieldLines(fields.slice(0, MAX_LISTED_FIELDS), `${indent}  `, style));
  if (fields.length > MAX_LISTED_FIELDS) {
    lines.push(`${indent}  … and ${fields.length - MAX_LISTED_FIELDS} more fields (all of them: state --json)`);
  }
  if (options.times && request.requestedAt !== undefined) {
    const expiry = request.expiresAt
      ? `expires ${terminalSafeLine(request.expiresAt)} (then the server is told cancel)`
      : 'no time limit';
    lines.push(style.dim(`${indent}requested ${terminalSafeLine(request.requestedAt)} · ${expiry}`));
  }
  if (options.runId !== undefined) {
    const commands = answerCommands(options.runId, request.id, fields, options.command);
    lines.push(
      style.dim(`${indent}accept:  ${commands.accept}`),
      style.dim(`${indent}decline: ${commands.decline}`),
      style.dim(`${indent}cancel:  ${commands.cancel}`),
    );
  }
  return lines;
}

/** The fields as aligned lines: name, then {@link describeField}. */
export function fieldLines(fields: readonly ElicitationField[], indent: string, style: Style = PLAIN): string[] {
  const names = fields.map((field) => terminalSafeLine(field.name));
  const width = Math.min(24, Math.max(...names.map((name) => name.length)));
  return fields.map((field, i) => `${indent}${style.cyan(names[i]!.padEnd(width))}  ${describeField(field)}`);
}

/**
 * What a field takes, in a few words: type and limits, `required`, the default, then its title and description,
 * e.g. `integer, 0 to 150, default 30 · Your age`. Terminal-safe, one line.
 */
export function describeField(field: ElicitationField): string {
  const parts = [typeOf(field)];
  if (field.required) parts.push('required');
  const range = rangeOf(field);
  if (range) parts.push(range);
  if (field.default !== undefined) parts.push(`default ${shownValue(field.default)}`);
  const note = [field.title, field.description].filter((text) => text !== undefined).join(': ');
  const summary = parts.join(', ');
  return note ? `${summary} · ${cut(terminalSafeLine(note), MAX_NOTE_CHARS)}` : summary;
}

/** The commands that answer an elicitation, shell-quoted from the raw ids. */
export function answerCommands(
  runId: string,
  id: string,
  fields: readonly ElicitationField[],
  cli = CLI_COMMAND,
): { accept: string; decline: string; cancel: string } {
  const line = (...args: string[]) => [cli, 'answer', ...[runId, id, ...args].map(shellQuote)].join(' ');
  const template = contentTemplate(fields);
  return {
    // A question without fields is accepted as it is.
    accept: Object.keys(template).length > 0 ? line('accept', JSON.stringify(template)) : line('accept'),
    decline: line('decline'),
    cancel: line('cancel'),
  };
}

/**
 * Content to edit for an `accept`: every required field without a default (or, when none is required, every
 * field), with a placeholder of its type — `"..."` for text, the first option, the minimum or 0, `false`.
 */
export function contentTemplate(fields: readonly ElicitationField[]): JsonObject {
  const needed = fields.filter((field) => field.required && field.default === undefined);
  const shown = needed.length > 0 ? needed : fields.filter((field) => field.kind !== 'unsupported');
  // Own properties whatever the server named its fields (`__proto__` included), unlike assignment.
  return Object.fromEntries(shown.map((field) => [field.name, field.default ?? placeholder(field)]));
}

/** One line for a recorded answer: what was answered, by whom, with what. */
export function formatElicitationAnswer(
  raw: Pick<ElicitationRecord, 'id' | 'action' | 'content' | 'responder' | 'timedOut'>,
  style: Style = PLAIN,
  toolName?: string,
): string {
  const what = `elicitation ${terminalSafeLine(raw.id)}${toolName ? ` of ${style.cyan(terminalSafeLine(toolName))}` : ''}`;
  if (raw.timedOut) return style.yellow(`${what} timed out: the server is told cancel`);
  const verdict = {
    accept: style.green('accepted'),
    decline: style.red('declined'),
    cancel: style.yellow('cancelled'),
  }[raw.action];
  const who = raw.responder ? ` by ${style.bold(terminalSafeLine(raw.responder))}` : '';
  const content = raw.content !== undefined ? `: ${shownValue(raw.content as JsonValue)}` : '';
  return `${what} ${verdict ?? terminalSafeLine(String(raw.action))}${who}${content}`;
}

function typeOf(field: ElicitationField): string {
  switch (field.kind) {
    case 'text':
      return field.format ? `string (${terminalSafeLine(field.format)})` : 'string';
    case 'number':
    case 'integer':
      return field.kind;
    case 'boolean':
      return 'boolean (yes/no)';
    case 'choice':
      return `one of ${optionList(field)}`;
    case 'choices':
      return `any of ${optionList(field)}`;
    case 'unsupported':
      return `type ${shownValue(field.type ?? null)}, which cannot be answered here`;
  }
}

function rangeOf(field: ElicitationField): string | undefined {
  const span = (min: number | undefined, max: number | undefined, unit = '') => {
    const of = (n: number) => (unit ? ` ${unit}${n === 1 ? '' : 's'}` : '');
    if (min !== undefined && max !== undefined) {
      return min === max ? `exactly ${min}${of(min)}` : `${min} to ${max}${of(max)}`;
    }
    if (min !== undefined) return `at least ${min}${of(min)}`;
    if (max !== undefined) return `at most ${max}${of(max)}`;
    return undefined;
  };
  if (field.kind === 'text') return span(field.minLength, field.maxLength, 'character');
  if (field.kind === 'number' || field.kind === 'integer') return span(field.minimum, field.maximum);
  if (field.kind === 'choices') return span(field.minItems, field.maxItems, 'item');
  return undefined;
}

function optionList(field: ElicitationField): string {
  const options = field.options ?? [];
  if (options.length === 0) return 'no options';
  const listed = options.slice(0, MAX_LISTED_OPTIONS).map((option) => {
    const value = shownValue(option.value);
    return option.label !== undefined ? `${value} (${cut(terminalSafeLine(option.label), 60)})` : value;
  });
  const more = options.length > MAX_LISTED_OPTIONS ? ` and ${options.length - MAX_LISTED_OPTIONS} more` : '';
  return `${listed.join(', ')}${more}`;
}

function placeholder(field: ElicitationField): JsonValue {
  switch (field.kind) {
    case 'number':
    case 'integer':
      return field.minimum ?? 0;
    case 'boolean':
      return false;
    case 'choice':
      return field.options?.[0]?.value ?? '...';
    case 'choices':
      return (field.options ?? []).slice(0, field.minItems ?? 1).map((option) => option.value);
    default:
      return '...';
  }
}

/** A value as compact JSON, terminal-safe and cut. */
function shownValue(value: JsonValue): string {
  return cut(terminalSafe(JSON.stringify(value)), MAX_NOTE_CHARS);
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
