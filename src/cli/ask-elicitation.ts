// Answering an MCP elicitation in the terminal, field by field: each field is asked in its own type (numbers,
// yes/no, an option by number or value, a list of options), its default shown and taken on empty input, a required
// field asked until given. Each value is checked on its own with the runtime's own check, and the whole answer
// again before it is handed back, so what is sent is what the run accepts (it checks once more).
import { checkElicitationResponse, type ElicitationContent, type JsonValue } from '../protocol/index.js';
import { elicitationFields, singleFieldSchema, type ElicitationField } from './elicitation-fields.js';
import { describeField, type ElicitationView } from './format-elicitation.js';
import type { Prompter } from './prompter.js';
import type { Style } from './style.js';
import { terminalSafe, terminalSafeLine } from './terminal-text.js';

/** A person's answer to an elicitation, or `skip` (leave it waiting). */
export type ElicitationAnswer =
  | { action: 'accept'; content: ElicitationContent }
  | { action: 'decline' }
  | { action: 'cancel' }
  | 'skip';

/** Tries at each question (the action, one field) before the elicitation is skipped; a person can always retry. */
const MAX_TRIES = 5;
/** A field left out of the answer (optional, no default, empty input). */
const LEFT_OUT = Symbol('left out');
/** Input ended: nobody is there to ask any more. */
const ENDED = Symbol('ended');
/** Too many mistakes in a row: the question is skipped. */
const GAVE_UP = Symbol('gave up');
type Stop = typeof ENDED | typeof GAVE_UP;

/**
 * Asks what to do with an elicitation — accept, decline, cancel or skip — and on accept asks its fields one by one.
 * `problem` (a rejection by the run) is said first. Resolves `undefined` when input ended.
 */
export async function askElicitation(
  prompter: Prompter,
  request: Pick<ElicitationView, 'toolName' | 'requestedSchema'>,
  style: Style,
  problem?: string,
): Promise<ElicitationAnswer | undefined> {
  const fields = elicitationFields(request.requestedSchema);
  const tool = style.cyan(terminalSafeLine(request.toolName));
  const question = `${style.bold('Answer')} ${tool}'s question? [a]ccept / [d]ecline / [c]ancel / [s]kip `;
  let said = problem !== undefined ? style.yellow(terminalSafe(problem)) : undefined;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const choice = await prompter.ask(said !== undefined ? `${said}\n${question}` : question);
    said = undefined;
    if (choice === undefined) return undefined;
    if (choice === '' || /^s(kip)?$/i.test(choice)) return 'skip';
    if (/^d(ecline)?$/i.test(choice)) return { action: 'decline' };
    if (/^c(ancel)?$/i.test(choice)) return { action: 'cancel' };
    if (!/^a(ccept)?$/i.test(choice)) {
      said = style.yellow(`Type a, d, c or s.`);
      continue;
    }
    const blocked = fields.find((field) => field.kind === 'unsupported' && field.required);
    if (blocked) {
      said = style.yellow(
        `Field '${terminalSafeLine(blocked.name)}' is of a type that cannot be answered here; decline or cancel.`,
      );
      continue;
    }
    const content = await askFields(prompter, fields, request.requestedSchema, style);
    if (content === ENDED) return undefined;
    if (content === GAVE_UP) return 'skip';
    const check = checkElicitationResponse(objectSchema(request.requestedSchema), { action: 'accept', content });
    if (check.ok) return { action: 'accept', content: check.content ?? content };
    said = style.yellow(`That answer does not fit: ${terminalSafe(check.problem)}. Again:`);
  }
  return 'skip';
}

async function askFields(
  prompter: Prompter,
  fields: readonly ElicitationField[],
  schema: JsonValue,
  style: Style,
): Promise<ElicitationContent | Stop> {
  const entries: [string, ElicitationContent[string]][] = [];
  for (const field of fields) {
    if (field.kind === 'unsupported') continue;
    const value = await askField(prompter, field, schema, style);
    if (value === ENDED || value === GAVE_UP) return value;
    if (value !== LEFT_OUT) entries.push([field.name, value]);
  }
  // Own properties whatever the server named its fields (`__proto__` included), unlike assignment.
  return Object.fromEntries(entries);
}

/** Asks one field until its value passes the run's check on its own. */
export async function askField(
  prompter: Prompter,
  field: ElicitationField,
  schema: JsonValue,
  style: Style,
): Promise<ElicitationContent[string] | typeof LEFT_OUT | Stop> {
  const { about, prompt } = fieldQuestion(field, style);
  let problem: string | undefined;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    // The field's description and options once; after a mistake, what was wrong and the prompt again.
    const input = await prompter.ask(
      problem !== undefined ? `${style.yellow(problem)}\n${prompt}` : `${about}\n${prompt}`,
    );
    if (input === undefined) return ENDED;
    const parsed = input === '' ? emptyInput(field) : parseInput(field, input);
    if ('problem' in parsed) {
      problem = parsed.problem;
      continue;
    }
    if (parsed.value === LEFT_OUT) return LEFT_OUT;
    const check = checkElicitationResponse(singleFieldSchema(schema, field.name), {
      action: 'accept',
      content: { [field.name]: parsed.value },
    });
    if (check.ok) return parsed.value;
    problem = `${terminalSafe(check.problem)}.`;
  }
  return GAVE_UP;
}

type Parsed = { value: ElicitationContent[string] | typeof LEFT_OUT } | { problem: string };

/** Empty input takes the default, leaves an optional field out, and is refused for a required one. */
function emptyInput(field: ElicitationField): Parsed {
  if (field.default !== undefined) return { value: field.default as ElicitationContent[string] };
  if (!field.required) return { value: LEFT_OUT };
  return { problem: `${terminalSafeLine(field.name)} is required.` };
}

function parseInput(field: ElicitationField, input: string): Parsed {
  switch (field.kind) {
    case 'number':
    case 'integer': {
      const value = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(input) ? Number(input) : Number.NaN;
      if (!Number.isFinite(value)) return { problem: `Type a${field.kind === 'integer' ? ' whole' : ''} number.` };
      return { value };
    }
    case 'boolean':
      if (/^(y|yes|true)$/i.test(input)) return { value: true };
      if (/^(n|no|false)$/i.test(input)) return { value: false };
      return { problem: 'Type y or n.' };
    case 'choice': {
      const value = pickOption(field, input);
      return value === undefined ? { problem: `Type a number from 1 to ${field.options!.length}.` } : { value };
    }
    case 'choices': {
      if (input === '-') return { value: [] };
      const picked = input.split(',').map((part) => pickOption(field, part.trim()));
      if (picked.some((value) => value === undefined)) {
        return { problem: `Type numbers from 1 to ${field.options!.length}, separated by commas (- for none).` };
      }
      return { value: [...new Set(picked as string[])] };
    }
    default:
      return { value: input };
  }
}

/** An option by its number in the list, or by its exact value. */
function pickOption(field: ElicitationField, input: string): string | undefined {
  const options = field.options ?? [];
  if (/^\d+$/.test(input)) return options[Number(input) - 1]?.value;
  return options.find((option) => option.value === input)?.value;
}

/** The question for a field: what it takes with its options numbered, and the prompt with the default in brackets. */
function fieldQuestion(field: ElicitationField, style: Style): { about: string; prompt: string } {
  const name = style.cyan(terminalSafeLine(field.name));
  const lines = [`  ${name}: ${describeField(field)}`];
  if (field.kind === 'choice' || field.kind === 'choices') {
    for (const [i, option] of (field.options ?? []).entries()) {
      const label = option.label !== undefined ? ` (${terminalSafeLine(option.label)})` : '';
      lines.push(`    ${i + 1}) ${terminalSafeLine(option.value)}${label}`);
    }
  }
  const how = {
    text: '',
    number: '',
    integer: '',
    boolean: ' [y/n]',
    choice: ' (number)',
    choices: ' (numbers, comma-separated)',
    unsupported: '',
  }[field.kind];
  const fallback =
    field.default !== undefined ? ` [${defaultShown(field)}]` : field.required ? '' : style.dim(' (empty: leave out)');
  return { about: lines.join('\n'), prompt: `  ${name}${how}${fallback}: ` };
}

function defaultShown(field: ElicitationField): string {
  const value = field.default;
  if (field.kind === 'boolean' && typeof value === 'boolean') return value ? 'y' : 'n';
  if (typeof value === 'string') return terminalSafeLine(value);
  return terminalSafeLine(JSON.stringify(value) ?? '');
}

function objectSchema(schema: JsonValue): { [key: string]: JsonValue } {
  return schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? schema : {};
}
