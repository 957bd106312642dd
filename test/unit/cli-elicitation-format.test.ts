// How the CLI shows an MCP elicitation: the fields read from the server's schema (every form MCP allows, and what
// it does not), the question in the event log and in `state`, the commands that answer it (run through bash, as
// printed), and the run's other MCP and approval events. The server is untrusted: nothing it sends reaches the
// terminal raw, and the printed commands carry its exact ids and field names.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { elicitationFields, type ElicitationField } from '../../src/cli/elicitation-fields.js';
import { createEventFormatter, formatState } from '../../src/cli/format.js';
import { answerCommands, contentTemplate, describeField } from '../../src/cli/format-elicitation.js';
import type { JsonObject, JsonValue, RunEvent, RunEventBody, RunState } from '../../src/protocol/index.js';

const AT = '2026-01-02T03:04:05.678Z';
const ESC = '\u001b';
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Every kind of field MCP's requested schemas allow. */
const SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Your name', minLength: 1, maxLength: 40 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    plan: { type: 'string', enum: ['free', 'pro'], enumNames: ['Free', 'Pro'], default: 'free' },
    color: {
      type: 'string',
      oneOf: [
        { const: '#f00', title: 'Red' },
        { const: '#0f0', title: 'Green' },
      ],
    },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2 },
    sizes: { type: 'array', items: { anyOf: [{ const: 's', title: 'Small' }] } },
    agree: { type: 'boolean', default: true, title: 'Agree' },
    email: { type: 'string', format: 'email' },
    score: { type: 'number', minimum: 0.5 },
  },
  required: ['name', 'tags', 42],
};

function field(fields: ElicitationField[], name: string): ElicitationField {
  return fields.find((candidate) => candidate.name === name)!;
}

/** Runs `line` (a command the CLI printed) with bash, the command replaced by printf: returns its arguments. */
function argumentsOf(line: string, command = 'npx durable-agent'): string[] {
  const start = line.indexOf(command);
  expect(start, line).toBeGreaterThanOrEqual(0);
  const script = `printf '%s\\0' ${line.slice(start + command.length)}`;
  return execFileSync('bash', ['-c', script]).toString('utf8').split('\0').slice(0, -1);
}

describe('elicitationFields', () => {
  it('reads every kind of field, in the server order, with its limits, options, default and required flag', () => {
    const fields = elicitationFields(SCHEMA);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'text', true],
      ['age', 'integer', false],
      ['plan', 'choice', false],
      ['color', 'choice', false],
      ['tags', 'choices', true],
      ['sizes', 'choices', false],
      ['agree', 'boolean', false],
      ['email', 'text', false],
      ['score', 'number', false],
    ]);
    expect(field(fields, 'name')).toMatchObject({ description: 'Your name', minLength: 1, maxLength: 40 });
    expect(field(fields, 'age')).toMatchObject({ minimum: 0, maximum: 150 });
    expect(field(fields, 'plan').options).toEqual([
      { value: 'free', label: 'Free' },
      { value: 'pro', label: 'Pro' },
    ]);
    expect(field(fields, 'plan').default).toBe('free');
    expect(field(fields, 'color').options).toEqual([
      { value: '#f00', label: 'Red' },
      { value: '#0f0', label: 'Green' },
    ]);
    expect(field(fields, 'tags')).toMatchObject({ options: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    expect(field(fields, 'tags')).toMatchObject({ minItems: 1, maxItems: 2 });
    expect(field(fields, 'sizes').options).toEqual([{ value: 's', label: 'Small' }]);
    expect(field(fields, 'agree')).toMatchObject({ title: 'Agree', default: true });
    expect(field(fields, 'email').format).toBe('email');
  });

  it('marks what the run cannot check as unsupported, and reads a malformed schema as no fields', () => {
    const fields = elicitationFields({
      type: 'object',
      properties: {
        untypedEnum: { enum: ['x', 3, 'y'] },
        untypedOneOf: { oneOf: [{ const: 'x', title: 'X' }] },
        nested: { type: 'object', properties: {} },
        list: { type: 'array', items: { type: 'string' } },
        weird: 'not a schema',
        minLength: { type: 'string', minLength: 'ten' },
      },
    });
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ['untypedEnum', 'choice'],
      ['untypedOneOf', 'unsupported'],
      ['nested', 'unsupported'],
      ['list', 'unsupported'],
      ['weird', 'unsupported'],
      ['minLength', 'text'],
    ]);
    // Only string options can be answered.
    expect(field(fields, 'untypedEnum').options).toEqual([{ value: 'x' }, { value: 'y' }]);
    expect(field(fields, 'minLength').minLength).toBeUndefined();
    const malformed: (JsonValue | undefined)[] = [null, 'x', [], { type: 'object' }, { properties: [] }, undefined];
    for (const schema of malformed) {
      expect(elicitationFields(schema)).toEqual([]);
    }
  });
});

describe('describeField', () => {
  it('says in a few words what each field takes', () => {
    const described = Object.fromEntries(elicitationFields(SCHEMA).map((f) => [f.name, describeField(f)]));
    expect(described).toEqual({
      name: 'string, required, 1 to 40 characters · Your name',
      age: 'integer, 0 to 150',
      plan: 'one of "free" (Free), "pro" (Pro), default "free"',
      color: 'one of "#f00" (Red), "#0f0" (Green)',
      tags: 'any of "a", "b", "c", required, 1 to 2 items',
      sizes: 'any of "s" (Small)',
      agree: 'boolean (yes/no), default true · Agree',
      email: 'string (email)',
      score: 'number, at least 0.5',
    });
    const [one] = elicitationFields({ type: 'object', properties: { pin: { type: 'string', minLength: 1 } } });
    expect(describeField(one!)).toBe('string, at least 1 character');
    const [object] = elicitationFields({ type: 'object', properties: { o: { type: 'object' } } });
    expect(describeField(object!)).toBe('type "object", which cannot be answered here');
  });

  it('cuts long descriptions and long option lists', () => {
    const options = Array.from({ length: 30 }, (_, i) => `o${i}`);
    const [long, many] = elicitationFields({
      type: 'object',
      properties: {
        long: { type: 'string', description: 'x'.repeat(1000) },
        many: { type: 'string', enum: options },
      },
    });
    const text = describeField(long!);
    expect(text).toBe(`string · ${'x'.repeat(199)}…`);
    expect(describeField(many!)).toBe(
      `one of ${options
        .slice(0, 12)
        .map((o) => `"${o}"`)
        .join(', ')} and 18 more`,
    );
  });
});

describe('bounds on what a server sends', () => {
  it('cuts a long question and lists at most 40 fields, counting the rest', () => {
    const properties: JsonObject = {};
    for (let i = 0; i < 100; i++) properties[`f${i}`] = { type: 'string' };
    const text = createEventFormatter()({
      seq: 1,
      at: AT,
      type: 'elicitation-requested',
      id: 'e',
      toolCallId: 'c',
      toolName: 't',
      serverName: 's',
      message: 'q'.repeat(10_000),
      requestedSchema: { type: 'object', properties },
    });
    const lines = text.split('\n');
    expect(lines[1]).toBe(`    question: ${'q'.repeat(3999)}…`);
    expect(lines.filter((line) => /^ {6}f\d+ +string$/.test(line))).toHaveLength(40);
    expect(lines.at(-1)).toBe('      … and 60 more fields (all of them: state --json)');
  });
});

describe('the commands that answer an elicitation', () => {
  it('accept with the required fields to fill in, decline and cancel, exactly as bash reads them', () => {
    const fields = elicitationFields(SCHEMA);
    expect(contentTemplate(fields)).toEqual({ name: '...', tags: ['a'] });
    const commands = answerCommands("run 1; echo 'x'", 'el-1', fields);
    expect(argumentsOf(commands.accept)).toEqual([
      'answer',
      "run 1; echo 'x'",
      'el-1',
      'accept',
      '{"name":"...","tags":["a"]}',
    ]);
    expect(argumentsOf(commands.decline)).toEqual(['answer', "run 1; echo 'x'", 'el-1', 'decline']);
    expect(argumentsOf(commands.cancel)).toEqual(['answer', "run 1; echo 'x'", 'el-1', 'cancel']);
  });

  it('puts every field name in the content as it is, `__proto__` included', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
    );
    const template = contentTemplate(elicitationFields(schema as JsonObject));
    expect(JSON.stringify(template)).toBe('{"__proto__":"..."}');
  });

  it('with no required field, shows every field it can take (defaults as they are); none at all: accept alone', () => {
    const fields = elicitationFields({
      type: 'object',
      properties: {
        age: { type: 'integer', minimum: 18 },
        ok: { type: 'boolean' },
        plan: { type: 'string', enum: ['free', 'pro'], default: 'pro' },
        o: { type: 'object' },
      },
    });
    expect(contentTemplate(fields)).toEqual({ age: 18, ok: false, plan: 'pro' });
    expect(answerCommands('r', 'e', []).accept).toBe('npx durable-agent answer r e accept');
  });
});

describe('run events about MCP, elicitations and refused decisions', () => {
  let seq = 0;
  const ev = (body: RunEventBody): RunEvent => ({ seq: ++seq, at: AT, ...body }) as RunEvent;
  const requested: RunEventBody = {
    type: 'elicitation-requested',
    id: 'el-1',
    toolCallId: 'q',
    toolName: 'local_elicit',
    serverName: 'local',
    message: 'Who are you?\nBe honest.',
    requestedSchema: {
      type: 'object',
      properties: { name: { type: 'string', description: 'Your name' }, age: { type: 'integer', maximum: 150 } },
      required: ['name'],
    },
  };

  it('shows the question, its fields and, given the run, the commands that answer it', () => {
    seq = 0;
    const format = createEventFormatter({ runId: 'run-1' });
    expect(format(ev(requested)).split('\n')).toEqual([
      '#1    ANSWER NEEDED  local_elicit asks a question (MCP server local · elicitation el-1 · tool call q)',
      '    question: Who are you?',
      '              Be honest.',
      '    fields:',
      '      name  string, required · Your name',
      '      age   integer, at most 150',
      `    accept:  npx durable-agent answer run-1 el-1 accept '{"name":"..."}'`,
      '    decline: npx durable-agent answer run-1 el-1 decline',
      '    cancel:  npx durable-agent answer run-1 el-1 cancel',
    ]);
    // The answer names the tool whose question it was.
    expect(format(ev({ type: 'elicitation-answered', id: 'el-1', action: 'accept', responder: 'ada' }))).toBe(
      '#2   elicitation el-1 of local_elicit accepted by ada',
    );
    // Without the run id there is nothing to paste: no commands.
    expect(createEventFormatter()(ev(requested))).not.toContain('npx durable-agent');
  });

  it('shows declined, cancelled and timed-out answers, MCP listings and failures, and refused decisions', () => {
    seq = 0;
    const format = createEventFormatter();
    const lines = [
      ev({ type: 'elicitation-answered', id: 'e2', action: 'decline' }),
      ev({ type: 'elicitation-answered', id: 'e3', action: 'cancel', responder: 'bo' }),
      ev({ type: 'elicitation-answered', id: 'e4', action: 'cancel', timedOut: true }),
      ev({ type: 'mcp-tools-listed', server: 'files', version: 'v1', tools: 12, skipped: 0 }),
      ev({ type: 'mcp-tools-listed', server: 'crm', version: 'v2', tools: 1, skipped: 2 }),
      ev({ type: 'mcp-server-failed', server: 'gone', reason: 'connect-failed', message: 'ECONNREFUSED 127.0.0.1:9' }),
      ev({
        type: 'approval-refused',
        toolCallId: 'c1',
        toolName: 'send_email',
        approver: 'mallory',
        reason: 'mallory may not approve send_email',
      }),
      ev({ type: 'approval-refused', toolCallId: 'c1', toolName: 'send_email', reason: 'no identity' }),
    ].map((event) => format(event).slice(5));
    expect(lines).toEqual([
      'elicitation e2 declined',
      'elicitation e3 cancelled by bo',
      'elicitation e4 timed out: the server is told cancel',
      'MCP server files: 12 tools',
      "MCP server crm: 1 tool, 2 skipped (see the worker's log)",
      'MCP server gone failed (connect-failed): ECONNREFUSED 127.0.0.1:9 · the run goes on without its tools',
      'decision by mallory on send_email refused: mallory may not approve send_email (the call still waits for approval)',
      'decision on send_email refused: no identity (the call still waits for approval)',
    ]);
  });
});

describe('a hostile MCP server', () => {
  const name = `na'me${ESC}[2J\u202e`;
  const id = `el-1${ESC}]0;pwned\u0007 $(id)`;
  const request = {
    id,
    toolCallId: `q${ESC}[31m`,
    toolName: `evil_ask${ESC}[5m`,
    serverName: `evil${ESC}[8m`,
    message: `Type your password${ESC}[8m here\u009b2J`,
    requestedSchema: {
      type: 'object',
      properties: {
        [name]: { type: 'string', description: `d${ESC}[1A`, title: `t\u202e`, default: `x${ESC}[0m` },
        pick: { type: 'string', enum: [`o${ESC}[1m`, 'p'], enumNames: [`O\u0007`, 'P'] },
      },
      required: [name],
    },
  };

  it('never reaches the terminal raw, and the commands carry its exact id and field names', () => {
    const event = createEventFormatter({ runId: 'r' })({ seq: 1, at: AT, type: 'elicitation-requested', ...request });
    const state: RunState = {
      status: 'waiting',
      step: 1,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      pendingApprovals: [],
      pendingToolResults: [],
      pendingElicitations: [{ ...request, requestedAt: AT, expiresAt: `${AT}${ESC}[1m` }],
      runningTools: [],
      messageCount: 1,
      lastEventSeq: 1,
    };
    const shown = formatState('r', state);
    for (const text of [event, shown]) {
      expect(text.replace(/\n/g, '')).not.toMatch(UNSAFE);
      expect(text).toContain('Type your password here');
      const accept = text.split('\n').find((line) => line.includes('accept:'))!;
      const [, runId, elicitationId, action, content] = argumentsOf(accept);
      expect([runId, elicitationId, action]).toEqual(['r', id, 'accept']);
      // A required field with a default needs nothing: every field is shown, with the exact names and values.
      expect(JSON.parse(content!)).toEqual({ [name]: `x${ESC}[0m`, pick: `o${ESC}[1m` });
      expect(argumentsOf(text.split('\n').find((line) => line.includes('decline:'))!)).toEqual([
        'answer',
        'r',
        id,
        'decline',
      ]);
    }
  });
});
