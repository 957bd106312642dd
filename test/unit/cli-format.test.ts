import { describe, expect, it } from 'vitest';
import {
  createEventFormatter,
  formatDecision,
  formatListHeader,
  formatListedRun,
  formatOutcome,
  formatState,
  formatValue,
} from '../../src/cli/format.js';
import { createStyle, shouldColor, stripStyle } from '../../src/cli/style.js';
import { signClaims, verifySignedClaims } from '../../src/mcp/signed-claims.js';
import type { JsonValue, RunEvent, RunEventBody, RunState } from '../../src/protocol/index.js';

const AT = '2026-01-02T03:04:05.678Z';
let seq = 0;
const ev = (body: RunEventBody): RunEvent => ({ seq: ++seq, at: AT, ...body }) as RunEvent;
const usage = { inputTokens: 90, outputTokens: 10, totalTokens: 100 };

/** Formats events in order with one formatter (as `watch` does) and returns the lines without the `#n` prefix. */
function formatAll(bodies: RunEventBody[], options: Parameters<typeof createEventFormatter>[0] = {}): string[] {
  seq = 0;
  const format = createEventFormatter(options);
  // The prefix is `#n` padded to four characters and a space.
  return bodies.map((body) => format(ev(body)).slice(5));
}

describe('createEventFormatter', () => {
  it('shows a run as a person reads it: steps, tool calls, results, the answer', () => {
    expect(
      formatAll([
        { type: 'run-started', agentName: 'assistant' },
        { type: 'step-started', step: 1 },
        { type: 'tool-call', step: 1, toolCallId: 'c1', toolName: 'get_weather', args: { city: 'Paris' } },
        { type: 'tool-started', step: 1, toolCallId: 'c1', toolName: 'get_weather' },
        {
          type: 'tool-result',
          step: 1,
          toolCallId: 'c1',
          toolName: 'get_weather',
          outcome: 'ok',
          output: { tempC: 14 },
        },
        { type: 'step-finished', step: 1, finishReason: 'tool-calls', usage },
        { type: 'text', step: 2, text: 'It rains.\nTake an umbrella.' },
        { type: 'finished', text: 'It rains.', finishReason: 'stop', stopReason: 'completed' },
      ]),
    ).toEqual([
      'run started · agent assistant',
      'step 1',
      'call get_weather {"city":"Paris"} (c1)',
      'running get_weather (c1)',
      '✓ get_weather → {"tempC":14}',
      'step 1 done · tool-calls · 100 tokens (90 in, 10 out)',
      'model says: It rains.\n    Take an umbrella.',
      'finished (completed, stop)',
    ]);
  });

  it('says when an MCP server answered after the listing budget', () => {
    expect(
      formatAll([
        { type: 'mcp-tools-listed', server: 'ok', version: 'v1', tools: 1, skipped: 0 },
        { type: 'mcp-tools-listed', server: 'slow', version: 'v2', tools: 2, skipped: 0, late: true },
        { type: 'mcp-server-failed', server: 'hung', reason: 'cancelled', message: 'still listing', late: true },
      ]).map(stripStyle),
    ).toEqual([
      'MCP server ok: 1 tool',
      'MCP server slow: 2 tools (late: offered from the next model call)',
      'MCP server hung failed late (cancelled): still listing · the run goes on without its tools',
    ]);
  });

  it('numbers events by their sequence number and can prefix the time of day', () => {
    seq = 6;
    expect(createEventFormatter()(ev({ type: 'step-started', step: 2 }))).toBe('#7   step 2');
    seq = 122;
    expect(createEventFormatter({ timestamps: true })(ev({ type: 'cancelled' }))).toBe('03:04:05 #123 cancelled');
  });

  it('highlights a pending approval and, given the run id, says how to answer it', () => {
    const [plain] = formatAll([
      { type: 'approval-requested', step: 2, toolCallId: 'c2', toolName: 'send_email', args: { to: 'ana' } },
    ]);
    expect(plain).toBe(' APPROVAL NEEDED  send_email {"to":"ana"} (c2)');
    const [withHints] = formatAll(
      [{ type: 'approval-requested', step: 2, toolCallId: 'c2', toolName: 'send_email', args: {} }],
      { runId: 'run-9' },
    );
    expect(withHints!.split('\n')).toEqual([
      ' APPROVAL NEEDED  send_email {} (c2)',
      '    approve: npx durable-agent approve run-9 c2',
      '    deny:    npx durable-agent deny run-9 c2 --reason "..."',
    ]);
    const colored = createEventFormatter({ style: createStyle(true) })(
      ev({ type: 'approval-requested', step: 2, toolCallId: 'c2', toolName: 'send_email', args: {} }),
    );
    expect(colored).toContain('\u001b[30;43;1m APPROVAL NEEDED \u001b[39;49;22m');
    expect(stripStyle(colored).endsWith(' APPROVAL NEEDED  send_email {} (c2)')).toBe(true);
  });

  it('shows decisions with who decided and why, and every kind of tool outcome', () => {
    expect(
      formatAll([
        {
          type: 'approval-decided',
          toolCallId: 'c',
          toolName: 'send_email',
          approved: true,
          approver: 'ana',
          reason: 'ok',
        },
        { type: 'approval-decided', toolCallId: 'c', toolName: 'send_email', approved: false },
        {
          type: 'approval-decided',
          toolCallId: 'c',
          toolName: 'send_email',
          approved: false,
          timedOut: true,
          reason: 'No decision within 1h',
        },
        { type: 'tool-result', step: 1, toolCallId: 'c', toolName: 't', outcome: 'denied', output: 'too risky' },
        {
          type: 'tool-result',
          step: 1,
          toolCallId: 'c',
          toolName: 't',
          outcome: 'error',
          output: { error: true, name: 'Error', message: 'disk full' },
        },
        { type: 'tool-result', step: 1, toolCallId: 'c', toolName: 't', outcome: 'invalid', output: 'Invalid input' },
        { type: 'tool-result', step: 1, toolCallId: 'c', toolName: 't', outcome: 'client-result', output: [1] },
      ]),
    ).toEqual([
      'approved send_email by ana: ok',
      'denied send_email',
      'approval timed out send_email: No decision within 1h',
      '⊘ t not run: too risky',
      '✗ t failed: disk full',
      '✗ t invalid call: Invalid input',
      '✓ t (client result) → [1]',
    ]);
  });

  it('draws a bar for tool progress that states how far along it is, naming the tool from its call', () => {
    expect(
      formatAll([
        { type: 'tool-call', step: 1, toolCallId: 'c9', toolName: 'import_rows', args: {} },
        { type: 'tool-progress', toolCallId: 'c9', progressSeq: 1, value: { done: 5, total: 20 } },
        { type: 'tool-progress', toolCallId: 'c9', progressSeq: 2, value: 0.5 },
        { type: 'tool-progress', toolCallId: 'c9', progressSeq: 3, value: { counted: 3, done: false } },
        { type: 'tool-progress', toolCallId: 'unknown', progressSeq: 1, value: 'x' },
      ]).slice(1),
    ).toEqual([
      'import_rows [█████░░░░░░░░░░░░░░░]  25% {"done":5,"total":20}',
      'import_rows [██████████░░░░░░░░░░]  50% 0.5',
      'import_rows progress #3 {"counted":3,"done":false}',
      'unknown progress #1 "x"',
    ]);
  });

  it('shows client-side tool requests, failures, retriever errors and continue-as-new', () => {
    expect(
      formatAll(
        [
          { type: 'tool-result-requested', step: 1, toolCallId: 'c', toolName: 'pick_file', args: {} },
          { type: 'retriever-error', message: 'index offline' },
          { type: 'continued-as-new', generation: 2 },
          { type: 'failed', message: 'Tool denied', errorType: 'ToolDenied' },
        ],
        { runId: 'r' },
      ),
    ).toEqual([
      " RESULT NEEDED  client-side tool pick_file {} (c)\n    answer: npx durable-agent submit r c '<output JSON>'",
      'retriever failed (the run goes on without context): index offline',
      'continued as new (generation 2)',
      'failed: Tool denied [ToolDenied]',
    ]);
  });

  it('shows an event type it does not know instead of dropping it', () => {
    const [line] = formatAll([{ type: 'from-a-newer-worker', id: 'e1' } as unknown as RunEventBody]);
    expect(line).toBe(
      'from-a-newer-worker {"seq":1,"at":"2026-01-02T03:04:05.678Z","type":"from-a-newer-worker","id":"e1"}',
    );
  });

  it('cuts long values', () => {
    const [line] = formatAll(
      [{ type: 'tool-call', step: 1, toolCallId: 'c', toolName: 't', args: { text: 'x'.repeat(500) } }],
      { maxValueChars: 20 },
    );
    expect(line).toBe('call t {"text":"xxxxxxxxxx… (c)');
  });
});

describe('formatState', () => {
  const base: RunState = {
    status: 'waiting',
    step: 1,
    usage,
    pendingApprovals: [],
    pendingToolResults: [],
    pendingElicitations: [],
    runningTools: [],
    messageCount: 5,
    lastEventSeq: 9,
  };

  it('shows status, steps done, tokens and where the event log is', () => {
    expect(formatState('run-1', { ...base, status: 'completed', step: 3 })).toBe(
      [
        'run run-1',
        '  status:   completed · 3 steps done',
        '  tokens:   100 (90 in, 10 out)',
        '  messages: 5 · last event #9',
      ].join('\n'),
    );
  });

  it("shows the starter's userId and context as claims, never as who the user is", () => {
    const text = formatState('run-1', { ...base, claims: { userId: 'intern', context: { role: 'admin' } } });
    expect(text.split('\n').slice(4)).toEqual(['  claimed user:    intern', '  claimed context: {"role":"admin"}']);
    const signed = formatState('run-1', { ...base, claims: { context: { claims: 'payload.sig' } } });
    expect(signed).toContain("signed claims: checked by the worker's verifyIdentity, not verified here");
    expect(formatState('run-1', { ...base, claims: { context: {} } })).not.toContain('claimed');
    const key = 'k'.repeat(32);
    const token = signClaims({ userId: 'ada', context: { role: 'admin' } }, key);
    const verify = (context: Record<string, JsonValue>) => {
      const identity = verifySignedClaims(key)({ context: new Map(Object.entries(context)) });
      return identity instanceof Promise ? undefined : identity;
    };
    const good = formatState('run-1', { ...base, claims: { context: { claims: token } } }, { verifyClaims: verify });
    expect(good).toContain('signed claims: verified (user ada)');
    const forged = { context: { claims: signClaims({ userId: 'ada' }, 'other-key') } };
    expect(formatState('run-1', { ...base, claims: forged }, { verifyClaims: verify })).toContain('do not verify');
  });

  it('lists pending approvals with the commands that answer them', () => {
    const text = formatState('run-1', {
      ...base,
      pendingApprovals: [
        { toolCallId: 'c2', toolName: 'send_email', args: { to: 'ana' }, step: 2, requestedAt: AT, expiresAt: AT },
      ],
    });
    expect(text.split('\n').slice(1)).toEqual([
      '  status:   waiting · 1 step done',
      '  tokens:   100 (90 in, 10 out)',
      '  messages: 5 · last event #9',
      ' pending approvals ',
      '  c2  send_email {"to":"ana"}',
      `    step 2 · requested ${AT} · expires ${AT}`,
      '    npx durable-agent approve run-1 c2  |  npx durable-agent deny run-1 c2',
    ]);
  });

  it('lists client-side calls, elicitations and running tools with their progress', () => {
    const text = formatState('r', {
      ...base,
      status: 'running',
      pendingToolResults: [{ toolCallId: 'c3', toolName: 'pick_file', args: {}, step: 1 }],
      pendingElicitations: [
        {
          id: 'e1',
          message: 'Your name?',
          toolCallId: 'c9',
          toolName: 'fs_ask',
          serverName: 'fs',
          requestedSchema: { type: 'object' },
          requestedAt: AT,
        },
      ],
      runningTools: [
        { toolCallId: 'c4', toolName: 'count_slowly', step: 1, startedAt: AT },
        {
          toolCallId: 'c5',
          toolName: 'import',
          step: 1,
          startedAt: AT,
          progress: { seq: 2, value: { done: 1, total: 4 } },
        },
      ] as RunState['runningTools'],
    });
    expect(text).toContain(
      " waiting for client-side tool results \n  c3  pick_file {}\n    npx durable-agent submit r c3 '<output JSON>'",
    );
    expect(text).toContain(
      [
        ' pending elicitations ',
        '  e1  fs_ask (MCP server fs · tool call c9)',
        '    question: Your name?',
        '    fields:   none (accept, decline or cancel)',
        `    requested ${AT} · no time limit`,
        '    accept:  npx durable-agent answer r e1 accept',
        '    decline: npx durable-agent answer r e1 decline',
        '    cancel:  npx durable-agent answer r e1 cancel',
      ].join('\n'),
    );
    expect(text).toContain(`  c4  count_slowly since ${AT}\n  c5  import since ${AT} [█████░░░░░░░░░░░░░░░]  25%`);
  });
});

describe('small formatters', () => {
  it('formatDecision says who decided', () => {
    expect(formatDecision({ toolName: 'send_email', approved: true, approver: 'demo-user', reason: 'fine' })).toBe(
      'approved send_email by demo-user: fine',
    );
  });

  it('formatListedRun shows start time, status, agent and id under a header', () => {
    const row = formatListedRun({
      workflowId: 'run-1',
      status: 'waiting for approval',
      startTime: new Date(AT),
      agent: 'assistant',
    });
    expect(row).toBe(`${AT}  waiting for approval     assistant         run-1`);
    expect(formatListHeader()).toMatch(/^STARTED {19}STATUS {19}AGENT {13}RUN$/);
    expect(formatListHeader().indexOf('AGENT')).toBe(row.indexOf('assistant'));
  });

  it('formatOutcome shows the answer and who decided', () => {
    expect(
      formatOutcome({
        answer: 'Sent.',
        decisions: [
          { toolName: 'send_email', approved: true, approver: 'ana', approverVerified: true, reason: 'ok' },
          { toolName: 'refund', approved: false, approver: 'bo' },
        ],
      }),
    ).toEqual([
      '  answer:   Sent.',
      '  decisions:',
      '    approved send_email by ana (verified): ok',
      '    denied refund by bo (as claimed)',
    ]);
    expect(formatOutcome({ failure: "Unknown agent 'x'.", decisions: [] })).toEqual(["  failure:  Unknown agent 'x'."]);
  });

  it('formatValue is compact JSON, cut with an ellipsis', () => {
    expect(formatValue({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
    expect(formatValue('abcdef', 4)).toBe('"ab…');
    expect(formatValue(undefined)).toBe('undefined');
  });
});

describe('style', () => {
  it('colours only terminals, and follows NO_COLOR and FORCE_COLOR', () => {
    expect(shouldColor({ isTTY: true }, {})).toBe(true);
    expect(shouldColor({ isTTY: false }, {})).toBe(false);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor({}, { FORCE_COLOR: '1' })).toBe(true);
    expect(shouldColor({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
  });

  it('plain style leaves text alone; stripStyle removes colours', () => {
    expect(createStyle(false).red('x')).toBe('x');
    expect(createStyle(true).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(stripStyle(createStyle(true).bold(createStyle(true).green('ok')))).toBe('ok');
  });
});
