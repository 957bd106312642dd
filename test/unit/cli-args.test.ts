import { describe, expect, it } from 'vitest';
import { parseCommand, type Command } from '../../src/cli/args.js';
import { CliUsageError } from '../../src/cli/errors/cli-usage-error.js';
import { COMMANDS, usage } from '../../src/cli/usage.js';

/** The CliUsageError a command line gives (fails the test when it parses). */
function usageError(argv: string[]): CliUsageError {
  try {
    parseCommand(argv);
  } catch (error) {
    if (CliUsageError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to be rejected`);
}

describe('parseCommand', () => {
  it('parses start with its options, keeping absent options absent', () => {
    expect(parseCommand(['start', 'assistant', 'What is the weather in Paris?'])).toEqual<Command>({
      name: 'start',
      agent: 'assistant',
      input: 'What is the weather in Paris?',
      watch: false,
      noPrompt: false,
    });
    expect(
      parseCommand([
        'start',
        'assistant',
        'hi',
        '--user',
        'u1',
        '--context',
        '{"plan":"pro","seats":3}',
        '--watch',
        '--conversation',
        'c1',
        '--id',
        'my-run',
        '--no-prompt',
      ]),
    ).toEqual<Command>({
      name: 'start',
      agent: 'assistant',
      input: 'hi',
      userId: 'u1',
      conversationId: 'c1',
      context: { plan: 'pro', seats: 3 },
      workflowId: 'my-run',
      watch: true,
      noPrompt: true,
    });
  });

  it('joins the words of an unquoted prompt, and takes everything after -- as input', () => {
    expect(parseCommand(['start', 'assistant', 'weather', 'in', 'Paris', '-w'])).toMatchObject({
      input: 'weather in Paris',
      watch: true,
    });
    expect(parseCommand(['start', 'assistant', '--', '--not-an-option'])).toMatchObject({ input: '--not-an-option' });
  });

  it('parses watch with --after, approve/deny with reason and approver', () => {
    expect(parseCommand(['watch', 'run-1'])).toEqual({ name: 'watch', runId: 'run-1', after: 0, noPrompt: false });
    expect(parseCommand(['watch', 'run-1', '--after', '12', '--no-prompt'])).toEqual({
      name: 'watch',
      runId: 'run-1',
      after: 12,
      noPrompt: true,
    });
    expect(parseCommand(['approve', 'run-1', 'call-1', '--reason', 'fine', '--approver', 'ana'])).toEqual({
      name: 'approve',
      runId: 'run-1',
      toolCallId: 'call-1',
      reason: 'fine',
      approver: 'ana',
    });
    expect(parseCommand(['deny', 'run-1', 'call-1', '--reason=too risky'])).toEqual({
      name: 'deny',
      runId: 'run-1',
      toolCallId: 'call-1',
      reason: 'too risky',
    });
  });

  it('parses answer, submit, cancel, state and list', () => {
    expect(parseCommand(['answer', 'r', 'e1', 'accept', '{"name":"Ana"}', '--responder', 'ana'])).toEqual({
      name: 'answer',
      runId: 'r',
      elicitationId: 'e1',
      action: 'accept',
      content: { name: 'Ana' },
      responder: 'ana',
    });
    // accept alone (every field its default), decline and cancel; --user is the same as --responder.
    expect(parseCommand(['answer', 'r', 'e1', 'accept'])).toEqual({
      name: 'answer',
      runId: 'r',
      elicitationId: 'e1',
      action: 'accept',
    });
    expect(parseCommand(['answer', 'r', 'e1', 'decline', '--user', 'bo'])).toEqual({
      name: 'answer',
      runId: 'r',
      elicitationId: 'e1',
      action: 'decline',
      responder: 'bo',
    });
    expect(parseCommand(['answer', 'r', 'e1', 'cancel', '--user', 'bo', '--responder', 'bo'])).toMatchObject({
      action: 'cancel',
      responder: 'bo',
    });
    expect(parseCommand(['submit', 'r', 'c', '{"ok":true}'])).toEqual({
      name: 'submit',
      runId: 'r',
      toolCallId: 'c',
      output: { ok: true },
      isError: false,
    });
    expect(parseCommand(['submit', 'r', 'c', '"boom"', '--error'])).toMatchObject({ output: 'boom', isError: true });
    expect(parseCommand(['cancel', 'r'])).toEqual({ name: 'cancel', runId: 'r' });
    expect(parseCommand(['state', 'r', '--json'])).toEqual({ name: 'state', runId: 'r', json: true });
    expect(parseCommand(['list'])).toEqual({ name: 'list', limit: 20 });
    expect(parseCommand(['list', '--query', "ExecutionStatus = 'Running'", '--limit', '5'])).toEqual({
      name: 'list',
      query: "ExecutionStatus = 'Running'",
      limit: 5,
    });
  });

  it('gives help for no arguments, help, --help and <command> --help', () => {
    expect(parseCommand([])).toEqual({ name: 'help' });
    expect(parseCommand(['--help'])).toEqual({ name: 'help' });
    expect(parseCommand(['help'])).toEqual({ name: 'help' });
    expect(parseCommand(['help', 'approve'])).toEqual({ name: 'help', topic: 'approve' });
    expect(parseCommand(['approve', '-h'])).toEqual({ name: 'help', topic: 'approve' });
    // --help wins over missing arguments: a person asking for help should get it.
    expect(parseCommand(['start', '--help'])).toEqual({ name: 'help', topic: 'start' });
  });

  it('rejects unknown commands and options', () => {
    expect(usageError(['frobnicate']).message).toBe("Unknown command 'frobnicate'.");
    expect(usageError(['--verbose']).message).toBe("Expected a command before '--verbose'.");
    expect(usageError(['help', 'nope']).message).toBe("Unknown command 'nope'.");
    const unknownOption = usageError(['state', 'r', '--colour']);
    expect(unknownOption.message).toBe("Unknown option '--colour'.");
    expect(unknownOption.command).toBe('state');
    expect(usageError(['approve', 'r', 'c', '--reason']).message).toMatch(/--reason/);
  });

  it('rejects missing, empty and extra arguments, naming them', () => {
    expect(usageError(['start']).message).toBe('Missing <agent> <input>.');
    expect(usageError(['start', 'assistant']).message).toBe('Missing <input>.');
    expect(usageError(['approve', 'run-1']).message).toBe('Missing <toolCallId>.');
    expect(usageError(['submit', 'r', 'c']).message).toBe('Missing <outputJSON>.');
    expect(usageError(['state', ' ']).message).toBe('<runId> must not be empty.');
    expect(usageError(['cancel', 'r', 'extra']).message).toBe("Unexpected argument 'extra'.");
    expect(usageError(['cancel', 'r', 'extra']).command).toBe('cancel');
  });

  it('rejects invalid JSON and JSON of the wrong shape', () => {
    expect(usageError(['submit', 'r', 'c', '{oops']).message).toMatch(
      /^<outputJSON> is not valid JSON \(.+\): \{oops$/,
    );
    expect(usageError(['start', 'a', 'hi', '--context', 'not json']).message).toMatch(/^--context is not valid JSON/);
    expect(usageError(['start', 'a', 'hi', '--context', '[1,2]']).message).toBe(
      `--context must be a JSON object, like '{"plan":"pro"}'.`,
    );
    expect(usageError(['answer', 'r', 'e', 'accept', '"x"']).message).toBe(
      `The content must be a JSON object, like '{"plan":"pro"}'.`,
    );
    expect(usageError(['answer', 'r', 'e', 'accept', '{name:1}']).message).toMatch(
      /^The content is not valid JSON \(.+\): \{name:1\}$/,
    );
  });

  it('rejects bad numbers and elicitation answers', () => {
    expect(usageError(['watch', 'r', '--after=-1']).message).toBe("--after must be a whole number, not '-1'.");
    expect(usageError(['watch', 'r', '--after', '-1']).message).toMatch(/^Option '--after' argument is ambiguous/);
    expect(usageError(['watch', 'r', '--after', 'x']).message).toBe("--after must be a whole number, not 'x'.");
    expect(usageError(['list', '--limit', '0']).message).toBe("--limit must be a whole number of at least 1, not '0'.");
    expect(usageError(['answer', 'r', 'e']).message).toBe('Missing <action>.');
    expect(usageError(['answer', 'r', 'e', 'maybe']).message).toBe(
      "<action> must be accept, decline or cancel, not 'maybe'.",
    );
    expect(usageError(['answer', 'r', 'e', 'decline', '{}']).message).toBe(
      "Content goes with accept only; a 'decline' answer carries none.",
    );
    expect(usageError(['answer', 'r', 'e', 'accept', '{}', 'extra']).message).toBe("Unexpected argument 'extra'.");
    expect(usageError(['answer', 'r', 'e', 'accept', ' ']).message).toBe('<content> must not be empty.');
    expect(usageError(['answer', 'r', 'e', 'cancel', '--user', 'a', '--responder', 'b']).message).toBe(
      '--user is the same as --responder: give one of them.',
    );
    // The old flags are gone, and say so.
    expect(usageError(['answer', 'r', 'e', '--action', 'accept']).message).toBe("Unknown option '--action'.");
  });
});

describe('usage', () => {
  it('lists every command in the overview, with the environment it reads', () => {
    const overview = usage();
    for (const name of Object.keys(COMMANDS)) expect(overview).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    for (const variable of ['TEMPORAL_ADDRESS', 'TEMPORAL_API_KEY', 'TEMPORAL_PROFILE', 'TEMPORAL_TASK_QUEUE']) {
      expect(overview).toContain(variable);
    }
    // Help spells the command as it can be run from a clone and from an install alike.
    expect(overview).toMatch(/^Usage: npx durable-agent <command>/);
  });

  it('shows a command with its arguments and every option', () => {
    const help = usage('approve');
    expect(help).toMatch(/^Usage: npx durable-agent approve <runId> <toolCallId> \[options\]/);
    expect(help).toContain('--reason R');
    expect(help).toContain('--approver A');
    expect(usage('start')).toContain('-w, --watch');
    expect(usage('watch')).toContain('--no-prompt');
    // An optional argument is shown in brackets, and the command's own help explains the answer.
    const answer = usage('answer');
    expect(answer).toMatch(/^Usage: npx durable-agent answer <runId> <elicitationId> <action> \[content\] \[options\]/);
    expect(answer).toContain('With accept, [content] is the answer: a JSON object of the fields asked for');
    expect(answer).toContain('--responder NAME');
  });
});
