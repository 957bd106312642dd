// The CLI's commands as data: names, arguments, options and help text. The parser and the help come from this one
// table, so they cannot disagree.

/** An option of a command, in the shape `node:util` `parseArgs` takes, plus its help. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder of the value in the help, e.g. `JSON`. */
  value?: string;
  help: string;
}

/** A command: its positional arguments (all required) and options. */
export interface CommandSpec {
  args: readonly string[];
  /** Positional arguments that may follow the required ones. */
  optionalArgs?: readonly string[];
  /** The last positional argument takes the rest of the words (so an unquoted prompt works). */
  restArg?: boolean;
  summary: string;
  /** More help shown under the summary of the command's own help. */
  details?: string;
  options: Readonly<Record<string, OptionSpec>>;
}

/** The name the CLI is installed under (the package's `bin`). */
export const CLI_NAME = 'durable-agent';

/**
 * How help and hints spell the command: `npx` runs the package's `bin` both from a clone of this repository (no
 * build needed) and where the package is installed, so every printed command works as printed.
 */
export const CLI_COMMAND = `npx ${CLI_NAME}`;

const HELP: OptionSpec = { type: 'boolean', short: 'h', help: 'Show this help.' };

/** Every command of the CLI. */
export const COMMANDS = {
  init: {
    args: ['dir'],
    summary: 'Write a new project: an agent with a tool that needs approval, a worker, a client, tests.',
    details: [
      'Then: cd <dir> && npm install && npm start (offline: an embedded Temporal dev server and the offline/demo',
      'model). The directory must be empty or absent.',
    ].join('\n'),
    options: {
      force: { type: 'boolean', help: 'Write into a directory that is not empty (existing files are kept).' },
      help: HELP,
    },
  },
  dev: {
    args: [],
    optionalArgs: ['agentsFile'],
    summary: 'Host your agents on an embedded dev server (unless TEMPORAL_ADDRESS); restart on change.',
    details: [
      '[agentsFile] (default ./agents.ts, else ./src/agents.ts) exports its agents: `export const agents = [...]`,',
      'a default export of an agent or an array, or exported Agent instances. The dev server keeps its state in',
      ".durable-agent/dev.db and serves the Web UI; the worker restarts when a file in the agents file's folder changes.",
    ].join('\n'),
    options: { help: HELP },
  },
  worker: {
    args: [],
    optionalArgs: ['agentsFile'],
    summary: 'Host your agents on a worker against the Temporal that TEMPORAL_* names (a real cluster).',
    options: { help: HELP },
  },
  start: {
    args: ['agent', 'input'],
    restArg: true,
    summary: 'Start a run of an agent on an input, and print its id.',
    options: {
      user: { type: 'string', value: 'ID', help: 'User id of the run (given to tools, hooks and approvals).' },
      conversation: { type: 'string', value: 'ID', help: 'Conversation id of the run.' },
      context: { type: 'string', value: 'JSON', help: 'Run context, a JSON object (stored in history: no secrets).' },
      id: { type: 'string', value: 'ID', help: 'Workflow id to use instead of a generated one.' },
      watch: { type: 'boolean', short: 'w', help: 'Then stream the run events until the run ends.' },
      'no-prompt': {
        type: 'boolean',
        help: 'Never ask about a pending approval or elicitation (default: ask in a terminal).',
      },
      approver: {
        type: 'string',
        value: 'A',
        help: 'Who decides inline, recorded (default: $USER, else the OS user).',
      },
      help: HELP,
    },
  },
  chat: {
    args: ['agent'],
    summary: 'Chat with an agent in a durable conversation: answers stream, approvals are asked inline.',
    details: [
      'Each line you type is a turn of the conversation. An empty line, /exit or Ctrl-D leaves; the conversation stays,',
      'and --conversation <id> rejoins it (its last messages are shown). /end ends it for good.',
    ].join('\n'),
    options: {
      conversation: { type: 'string', value: 'ID', help: 'Conversation id to join or create (default: a new one).' },
      user: { type: 'string', value: 'ID', help: "The conversation's user (default: $USER)." },
      help: HELP,
    },
  },
  watch: {
    args: ['runId'],
    summary: "Stream a run's events until it ends; answer its questions inline.",
    options: {
      after: { type: 'string', value: 'N', help: 'Only events after sequence number N (default 0: all).' },
      'no-prompt': {
        type: 'boolean',
        help: 'Never ask about a pending approval or elicitation (default: ask in a terminal).',
      },
      approver: {
        type: 'string',
        value: 'A',
        help: 'Who decides inline, recorded (default: $USER, else the OS user).',
      },
      help: HELP,
    },
  },
  approve: {
    args: ['runId', 'toolCallId'],
    summary: 'Approve a tool call that waits for approval.',
    options: {
      reason: { type: 'string', value: 'R', help: 'Why (recorded in the run).' },
      approver: { type: 'string', value: 'A', help: 'Who approves (default: $USER).' },
      help: HELP,
    },
  },
  deny: {
    args: ['runId', 'toolCallId'],
    summary: 'Deny a tool call that waits for approval; the model is told why.',
    options: {
      reason: { type: 'string', value: 'R', help: 'Why (the model sees it).' },
      approver: { type: 'string', value: 'A', help: 'Who denies (default: $USER).' },
      help: HELP,
    },
  },
  answer: {
    args: ['runId', 'elicitationId', 'action'],
    optionalArgs: ['content'],
    summary: 'Answer an MCP elicitation: accept [content], decline or cancel.',
    details: [
      'An elicitation is a question an MCP server asks a person during a tool call. <action> is accept, decline or',
      'cancel. With accept, [content] is the answer: a JSON object of the fields asked for, e.g.',
      `'{"name":"Ada","age":36}' (left out: {}, each field its default). '${CLI_COMMAND} state <runId>' lists pending`,
      'elicitations with their fields and the exact commands that answer them. The run checks the answer against',
      'the question and records nothing it rejects.',
    ].join('\n'),
    options: {
      responder: { type: 'string', value: 'NAME', help: 'Who answers, recorded with the answer (default: $USER).' },
      user: { type: 'string', value: 'NAME', help: 'Same as --responder.' },
      help: HELP,
    },
  },
  submit: {
    args: ['runId', 'toolCallId', 'outputJSON'],
    summary: 'Give a client-side tool call its result (a JSON value).',
    options: {
      error: { type: 'boolean', help: 'The output is an error for the model, not a result.' },
      help: HELP,
    },
  },
  cancel: {
    args: ['runId'],
    summary: 'Cancel a run (running tools see their abort signal; pending tools never run).',
    options: { help: HELP },
  },
  state: {
    args: ['runId'],
    summary: 'Show a run: status, steps, what it waits for, running tools.',
    options: {
      json: { type: 'boolean', help: 'Print the raw state as JSON.' },
      help: HELP,
    },
  },
  ui: {
    args: [],
    summary: 'Serve the inbox page: what waits for people across runs, live run views, a chat box.',
    details: [
      'Serves a small web app on 127.0.0.1 and prints the link that signs a browser in. The inbox lists every',
      'approval, MCP question and client-side tool request that waits in the namespace, with who asked and since',
      "when; a run's page streams it live. Decisions on your own runs (--user) are yours; on other users' runs the",
      "agent's authorizeDecision checks them. Runs are found by their search attributes (docs/web.md).",
    ].join('\n'),
    options: {
      port: { type: 'string', value: 'N', help: 'Port on 127.0.0.1 (default: a free one).' },
      user: { type: 'string', value: 'ID', help: 'Who the page acts as, the userId of your runs (default: $USER).' },
      agent: { type: 'string', value: 'NAME', help: 'The agent the chat box talks to (default: no chat box).' },
      'task-queue': {
        type: 'string',
        value: 'Q',
        help: 'Only runs on this task queue (default: every agent run of the namespace).',
      },
      help: HELP,
    },
  },
  list: {
    args: [],
    summary: 'List recent runs, newest first.',
    options: {
      query: { type: 'string', value: 'Q', help: 'Temporal visibility filter, e.g. "ExecutionStatus = \'Running\'".' },
      limit: { type: 'string', value: 'N', help: 'At most N runs (default 20).' },
      help: HELP,
    },
  },
} as const satisfies Record<string, CommandSpec>;

/** A command name. */
export type CommandName = keyof typeof COMMANDS;

/** Whether `name` is a command. */
export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

const ENVIRONMENT = `Environment (Temporal's own configuration, as the temporal CLI reads it):
  TEMPORAL_ADDRESS       Temporal frontend (default localhost:7233)
  TEMPORAL_NAMESPACE     Namespace (default "default")
  TEMPORAL_API_KEY       API key, sent as a bearer token over TLS (Temporal Cloud)
  TEMPORAL_TLS, TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH,
  TEMPORAL_TLS_SERVER_NAME
                         TLS: on/off, a private CA, a client certificate for mutual TLS
  TEMPORAL_PROFILE       Profile of temporal.toml to use (default "default")
  TEMPORAL_CONFIG_FILE   The temporal.toml (default ~/.config/temporalio/temporal.toml)
  TEMPORAL_TASK_QUEUE    Task queue workers poll and new runs go to (default: the name in the project's
                         package.json, here or above; else "durable-agent")
  NO_COLOR               Plain output`;

/** Help for one command, or the overview when `command` is undefined. */
export function usage(command?: CommandName): string {
  if (command === undefined) {
    const width = Math.max(...Object.keys(COMMANDS).map((name) => synopsis(name as CommandName).length));
    const lines = (Object.keys(COMMANDS) as CommandName[]).map(
      (name) => `  ${synopsis(name).padEnd(width)}  ${COMMANDS[name].summary}`,
    );
    return [
      `Usage: ${CLI_COMMAND} <command> [arguments] [options]`,
      '',
      'Commands:',
      ...lines,
      `  ${'help [command]'.padEnd(width)}  Show help for a command.`,
      '',
      ENVIRONMENT,
      '',
      `Exit status: 0 success, 1 failure (or a watched run that failed or was cancelled), 2 bad usage.`,
    ].join('\n');
  }
  const spec: CommandSpec = COMMANDS[command];
  const options = Object.entries(spec.options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : '    '}--${name}${option.value ? ` ${option.value}` : ''}`;
    return `  ${flag.padEnd(34)} ${option.help}`;
  });
  return [
    `Usage: ${CLI_COMMAND} ${synopsis(command)} [options]`,
    '',
    spec.summary,
    '',
    ...(spec.details !== undefined ? [spec.details, ''] : []),
    'Options:',
    ...options,
    '',
    ENVIRONMENT,
  ].join('\n');
}

function synopsis(command: CommandName): string {
  const spec: CommandSpec = COMMANDS[command];
  return [command, ...spec.args.map((arg) => `<${arg}>`), ...(spec.optionalArgs ?? []).map((arg) => `[${arg}]`)].join(
    ' ',
  );
}
