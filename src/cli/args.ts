// Parses the command line into a typed command. Pure: no I/O and no environment, so every mistake a person can
// type is a unit test, and nothing reaches Temporal until the whole line makes sense.
import { parseArgs } from 'node:util';
import type { JsonObject, JsonValue } from '../protocol/index.js';
import { closestNames } from './did-you-mean.js';
import { CliUsageError } from './errors/cli-usage-error.js';
import { COMMANDS, isCommandName, type CommandName, type CommandSpec } from './usage.js';

/** Answers an MCP elicitation can give. */
export const ELICITATION_ACTIONS = ['accept', 'decline', 'cancel'] as const;

/** An elicitation answer's action. */
export type ElicitationAction = (typeof ELICITATION_ACTIONS)[number];

/** A command that talks to Temporal as a client (every one but help and the local ones). */
export type ClientCommand = Exclude<Command, { name: 'help' | 'init' | 'dev' | 'worker' }>;

/** A parsed command line. */
export type Command =
  | { name: 'help'; topic?: CommandName }
  | { name: 'init'; dir: string; force: boolean }
  | { name: 'dev'; agentsFile?: string }
  | { name: 'worker'; agentsFile?: string }
  | {
      name: 'start';
      agent: string;
      input: string;
      userId?: string;
      conversationId?: string;
      context?: JsonObject;
      workflowId?: string;
      watch: boolean;
      /** Never ask to decide inline, even in a terminal. */
      noPrompt: boolean;
      /** Who decides inline (default: $USER, else the OS user). */
      approver?: string;
    }
  | { name: 'watch'; runId: string; after: number; noPrompt: boolean; approver?: string }
  | { name: 'chat'; agent: string; conversationId?: string; userId?: string }
  | { name: 'approve'; runId: string; toolCallId: string; reason?: string; approver?: string }
  | { name: 'deny'; runId: string; toolCallId: string; reason?: string; approver?: string }
  | {
      name: 'answer';
      runId: string;
      elicitationId: string;
      action: ElicitationAction;
      content?: JsonObject;
      responder?: string;
    }
  | { name: 'submit'; runId: string; toolCallId: string; output: JsonValue; isError: boolean }
  | { name: 'cancel'; runId: string }
  | { name: 'state'; runId: string; json: boolean }
  | { name: 'list'; query?: string; limit: number }
  | { name: 'ui'; port?: number; userId?: string; agent?: string; taskQueue?: string };

const DEFAULT_LIST_LIMIT = 20;

/**
 * Parses `argv` (without the node and script paths).
 *
 * @throws CliUsageError for an unknown command or option, a missing or extra argument, or a bad value.
 */
export function parseCommand(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') return { name: 'help' };
  if (first === 'help') {
    const topic = rest[0];
    if (topic === undefined) return { name: 'help' };
    if (!isCommandName(topic)) throw new CliUsageError(unknownCommand(topic));
    return { name: 'help', topic };
  }
  if (!isCommandName(first)) {
    throw new CliUsageError(first.startsWith('-') ? `Expected a command before '${first}'.` : unknownCommand(first));
  }
  const name = first;
  const spec: CommandSpec = COMMANDS[name];
  const { values, positionals } = parseOptions(name, spec, rest);
  if (values.help === true) return { name: 'help', topic: name };
  const args = positionalsOf(name, spec, positionals);
  const text = (key: string) => optionalString(values[key]);

  switch (name) {
    case 'init':
      return { name, dir: args[0]!, force: values.force === true };
    case 'dev':
    case 'worker':
      return { name, ...optional('agentsFile', args[0]) };
    case 'start': {
      const context = text('context');
      return {
        name,
        agent: args[0]!,
        input: args[1]!,
        ...optional('userId', text('user')),
        ...optional('conversationId', text('conversation')),
        ...optional('context', context === undefined ? undefined : parseJsonObject(context, '--context', name)),
        ...optional('workflowId', text('id')),
        watch: values.watch === true,
        noPrompt: values['no-prompt'] === true,
        ...optional('approver', text('approver')),
      };
    }
    case 'chat':
      return {
        name,
        agent: args[0]!,
        ...optional('conversationId', text('conversation')),
        ...optional('userId', text('user')),
      };
    case 'watch':
      return {
        name,
        runId: args[0]!,
        after: parseCount(text('after'), '--after', 0, name),
        noPrompt: values['no-prompt'] === true,
        ...optional('approver', text('approver')),
      };
    case 'approve':
    case 'deny':
      return {
        name,
        runId: args[0]!,
        toolCallId: args[1]!,
        ...optional('reason', text('reason')),
        ...optional('approver', text('approver')),
      };
    case 'answer': {
      const action = args[2]!;
      if (!(ELICITATION_ACTIONS as readonly string[]).includes(action)) {
        throw new CliUsageError(`<action> must be accept, decline or cancel, not '${action}'.`, { command: name });
      }
      const content = args[3];
      if (content !== undefined && action !== 'accept') {
        throw new CliUsageError(`Content goes with accept only; a '${action}' answer carries none.`, {
          command: name,
        });
      }
      const responder = text('responder');
      const user = text('user');
      if (responder !== undefined && user !== undefined && responder !== user) {
        throw new CliUsageError('--user is the same as --responder: give one of them.', { command: name });
      }
      return {
        name,
        runId: args[0]!,
        elicitationId: args[1]!,
        action: action as ElicitationAction,
        ...optional('content', content === undefined ? undefined : parseJsonObject(content, 'The content', name)),
        ...optional('responder', responder ?? user),
      };
    }
    case 'submit':
      return {
        name,
        runId: args[0]!,
        toolCallId: args[1]!,
        output: parseJson(args[2]!, '<outputJSON>', name),
        isError: values.error === true,
      };
    case 'cancel':
      return { name, runId: args[0]! };
    case 'state':
      return { name, runId: args[0]!, json: values.json === true };
    case 'ui': {
      const port = text('port');
      return {
        name,
        ...optional('port', port === undefined ? undefined : parsePort(port, name)),
        ...optional('userId', text('user')),
        ...optional('agent', text('agent')),
        ...optional('taskQueue', text('task-queue')),
      };
    }
    case 'list':
      return {
        name,
        ...optional('query', text('query')),
        limit: parseCount(text('limit'), '--limit', DEFAULT_LIST_LIMIT, name, 1),
      };
  }
}

function unknownCommand(typed: string): string {
  const suggestions = closestNames(typed, [...Object.keys(COMMANDS), 'help']).map((name) => `'${name}'`);
  const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.join(' or ')}?` : '';
  return `Unknown command '${typed}'.${hint}`;
}

type OptionValues = Record<string, string | boolean | undefined>;

function parseOptions(name: CommandName, spec: CommandSpec, argv: string[]) {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [key, option] of Object.entries(spec.options)) {
    options[key] = { type: option.type, ...(option.short ? { short: option.short } : {}) };
  }
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: parsed.values as OptionValues, positionals: parsed.positionals };
  } catch (error) {
    // parseArgs' own messages are precise ("Unknown option '--x'"); keep them, drop its advice about '--'.
    const message = error instanceof Error ? error.message.split('. To specify a positional')[0]! : String(error);
    throw new CliUsageError(message.endsWith('.') ? message : `${message}.`, { command: name, cause: error });
  }
}

function positionalsOf(name: CommandName, spec: CommandSpec, positionals: string[]): string[] {
  const names = [...spec.args, ...(spec.optionalArgs ?? [])];
  for (const [i, value] of positionals.slice(0, names.length).entries()) {
    if (value.trim() === '') throw new CliUsageError(`<${names[i]}> must not be empty.`, { command: name });
  }
  const missing = spec.args.slice(positionals.length);
  if (missing.length > 0) {
    throw new CliUsageError(`Missing ${missing.map((arg) => `<${arg}>`).join(' ')}.`, { command: name });
  }
  if (positionals.length > names.length) {
    if (!spec.restArg) {
      throw new CliUsageError(`Unexpected argument '${positionals[names.length]}'.`, { command: name });
    }
    const head = positionals.slice(0, names.length - 1);
    return [...head, positionals.slice(names.length - 1).join(' ')];
  }
  return positionals;
}

/** Parses a JSON value given on the command line, naming the argument in the error. */
export function parseJson(text: string, what: string, command?: CommandName): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliUsageError(`${what} is not valid JSON (${reason}): ${text}`, {
      ...(command ? { command } : {}),
      cause: error,
    });
  }
}

function parseJsonObject(text: string, what: string, command: CommandName): JsonObject {
  const value = parseJson(text, what, command);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliUsageError(`${what} must be a JSON object, like '{"plan":"pro"}'.`, { command });
  }
  return value;
}

function parseCount(text: string | undefined, what: string, fallback: number, command: CommandName, min = 0): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text.trim()) || Number(text) < min) {
    throw new CliUsageError(`${what} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, not '${text}'.`, {
      command,
    });
  }
  return Number(text);
}

function parsePort(text: string, command: CommandName): number {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port < 1 || port > 65_535) {
    throw new CliUsageError(`--port must be a port number (1 to 65535), not '${text}'.`, { command });
  }
  return port;
}

function optionalString(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `{ [key]: value }` when value is defined, else `{}`: keeps absent options absent. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
