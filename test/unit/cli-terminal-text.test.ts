// What a run reports is untrusted: model text, tool names, tool-call ids and arguments must not reach the terminal
// as escape sequences, and the commands the CLI suggests must run as printed, whatever the ids hold. The printed
// commands are checked by handing them to a real shell.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createEventFormatter, formatDecision, formatListedRun, formatState } from '../../src/cli/format.js';
import { shellQuote, terminalSafe, terminalSafeLine } from '../../src/cli/terminal-text.js';
import type { RunEvent, RunState } from '../../src/protocol/index.js';

/** Everything that must never reach a terminal raw (in plain style, where we add no escapes ourselves). */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const ESC = '\u001b';
/** A tool-call id a hostile model could send: a colour change, a window title, a bell, a shell command. */
const HOSTILE_ID = `call_1${ESC}[31m; rm -rf ~ ${ESC}]0;pwned\u0007'$(id)\``;
const HOSTILE_RUN = `run 1; echo "$HOME"`;
const HOSTILE_NAME = `send_email${ESC}[2J\u202e`;
const HOSTILE_TEXT = `Done.${ESC}[1A${ESC}[2K\rAll good\u009b31m\nSecond line\tend`;
const AT = '2026-01-02T03:04:05.678Z';

/** Runs `line` (a command the CLI printed) with bash, the command replaced by printf: returns its arguments. */
function argumentsOf(line: string, command = 'npx durable-agent'): string[] {
  const start = line.indexOf(command);
  expect(start, line).toBeGreaterThanOrEqual(0);
  const script = `printf '%s\\0' ${line.slice(start + command.length)}`;
  return execFileSync('bash', ['-c', script]).toString('utf8').split('\0').slice(0, -1);
}

describe('terminalSafe', () => {
  it('removes escape sequences, control characters and bidirectional overrides, keeping lines and text', () => {
    expect(terminalSafe(`a${ESC}[31mred${ESC}[0m b`)).toBe('ared b');
    expect(terminalSafe(`x${ESC}]0;title\u0007y`)).toBe('xy');
    expect(terminalSafe(`tab\there\nnext\rline\u0008\u007f`)).toBe('tab\there\nnextline');
    expect(terminalSafe('\u202eevil\u2066 \u200f')).toBe('evil ');
    expect(terminalSafe('\u009b31mC1')).not.toMatch(UNSAFE);
    expect(terminalSafe('€ 😀 日本 naïve')).toBe('€ 😀 日本 naïve');
    expect(terminalSafeLine('a\nb\tc')).toBe('a b c');
  });
});

describe('shellQuote', () => {
  const values = [
    'call_1',
    'run-1:2/3@x',
    'call_1; rm -rf ~',
    "it's",
    '$HOME `id` $(id) "q" \\',
    '',
    'naïve 日本',
    'line\nbreak\ttab',
    `a${ESC}[31mb\u0007`,
    '\u202eevil',
    HOSTILE_ID,
  ];

  it('gives one word that bash reads back exactly, for any value', () => {
    const words = values.map(shellQuote);
    const back = execFileSync('bash', ['-c', `printf '%s\\0' ${words.join(' ')}`])
      .toString('utf8')
      .split('\0')
      .slice(0, -1);
    expect(back).toEqual(values);
  });

  it('uses plain single quotes, which any POSIX sh reads, unless control characters force $-quotes', () => {
    const plain = values.filter((value) => terminalSafeLine(value) === value);
    const back = execFileSync('sh', ['-c', `printf '%s\\0' ${plain.map(shellQuote).join(' ')}`])
      .toString('utf8')
      .split('\0')
      .slice(0, -1);
    expect(back).toEqual(plain);
    expect(shellQuote('call_1')).toBe('call_1');
    expect(shellQuote('call 1')).toBe("'call 1'");
    expect(shellQuote('a\nb')).toBe("$'a\\x0ab'");
  });

  it('never prints a control character itself', () => {
    for (const value of values) expect(shellQuote(value)).not.toMatch(UNSAFE);
  });
});

describe('formatters with hostile run data', () => {
  const events: RunEvent[] = [
    { seq: 1, at: AT, type: 'run-started', agentName: `assistant${ESC}[5m` },
    { seq: 2, at: AT, type: 'text', step: 1, text: HOSTILE_TEXT },
    {
      seq: 3,
      at: AT,
      type: 'tool-call',
      step: 1,
      toolCallId: HOSTILE_ID,
      toolName: HOSTILE_NAME,
      args: { [`k${ESC}[1m`]: `v\u009b2J`, note: 'fine\u202e' },
    },
    { seq: 4, at: AT, type: 'approval-requested', step: 1, toolCallId: HOSTILE_ID, toolName: HOSTILE_NAME, args: {} },
    {
      seq: 5,
      at: AT,
      type: 'approval-decided',
      toolCallId: HOSTILE_ID,
      toolName: HOSTILE_NAME,
      approved: false,
      approver: `mallory${ESC}[8m`,
      reason: `no${ESC}]52;c;ZWNobyBoaQ==\u0007`,
    },
    {
      seq: 6,
      at: AT,
      type: 'tool-result',
      step: 1,
      toolCallId: HOSTILE_ID,
      toolName: HOSTILE_NAME,
      outcome: 'error',
      output: { error: true, message: `boom${ESC}[31m` },
    },
    { seq: 7, at: AT, type: 'tool-result-requested', step: 1, toolCallId: HOSTILE_ID, toolName: 'pick', args: {} },
    { seq: 8, at: AT, type: 'failed', message: `bad${ESC}[0m\u0007` },
  ];

  it('prints events without any control character, and commands that answer the exact ids', () => {
    const format = createEventFormatter({ runId: HOSTILE_RUN, timestamps: true });
    const lines = events.map((event) => format(event)).join('\n');
    // Newlines are ours (and the model's paragraphs); nothing else below U+0020 but tab.
    expect(lines.replace(/[\n\t]/g, '')).not.toMatch(UNSAFE);
    expect(lines).toContain('model says: Done.All goodC1'.replace('C1', ''));
    expect(lines).toContain('Second line\tend');
    expect(lines).toContain('denied send_email by mallory: no');

    const approve = lines.split('\n').find((line) => line.includes('approve: '))!;
    expect(argumentsOf(approve)).toEqual(['approve', HOSTILE_RUN, HOSTILE_ID]);
    const deny = lines.split('\n').find((line) => line.includes('deny: '))!;
    expect(argumentsOf(deny)).toEqual(['deny', HOSTILE_RUN, HOSTILE_ID, '--reason', '...']);
    const submit = lines.split('\n').find((line) => line.includes('answer: '))!;
    expect(argumentsOf(submit)).toEqual(['submit', HOSTILE_RUN, HOSTILE_ID, '<output JSON>']);
  });

  it('prints state, decisions and list rows the same way', () => {
    const state: RunState = {
      status: 'waiting',
      step: 1,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      pendingApprovals: [
        { toolCallId: HOSTILE_ID, toolName: HOSTILE_NAME, args: { x: `y${ESC}[1m` }, step: 1, requestedAt: AT },
      ],
      pendingToolResults: [{ toolCallId: HOSTILE_ID, toolName: HOSTILE_NAME, args: {}, step: 1 }],
      pendingElicitations: [
        {
          id: HOSTILE_ID,
          toolCallId: HOSTILE_ID,
          toolName: HOSTILE_NAME,
          serverName: `srv${ESC}[1m`,
          message: `ask${ESC}[1m`,
          requestedSchema: { type: 'object' },
          requestedAt: AT,
        },
      ],
      runningTools: [{ toolCallId: HOSTILE_ID, toolName: HOSTILE_NAME, startedAt: AT, step: 1 }],
      messageCount: 3,
      lastEventSeq: 8,
    };
    const text = formatState(HOSTILE_RUN, state);
    expect(text.replace(/\n/g, '')).not.toMatch(UNSAFE);
    const hint = text.split('\n').find((line) => line.includes(' approve '))!;
    const [approve, deny] = hint.split('  |  ');
    expect(argumentsOf(approve!)).toEqual(['approve', HOSTILE_RUN, HOSTILE_ID]);
    expect(argumentsOf(deny!)).toEqual(['deny', HOSTILE_RUN, HOSTILE_ID]);
    const submit = text.split('\n').find((line) => line.includes(' submit '))!;
    expect(argumentsOf(submit)).toEqual(['submit', HOSTILE_RUN, HOSTILE_ID, '<output JSON>']);

    expect(formatDecision({ toolName: HOSTILE_NAME, approved: true, approver: `a${ESC}[2J` })).toBe(
      'approved send_email by a',
    );
    const row = formatListedRun({
      workflowId: `w${ESC}]0;x\u0007`,
      status: 'running',
      startTime: new Date(AT),
      agent: `a${ESC}[2J`,
    });
    expect(row).not.toMatch(UNSAFE);
    expect(row).toMatch(new RegExp(`^${AT}  running +a +w$`));
  });
});
