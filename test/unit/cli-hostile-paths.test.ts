// Every CLI output path that prints text a model, tool, MCP server or client wrote, fed one hostile string in every
// such field: no terminal escape, control character or bidirectional control may reach the terminal. The event map
// is keyed by every event type, so a new event type does not typecheck here until it is added.
import { describe, expect, it } from 'vitest';
import type { AgentRun } from '../../src/client/agent-run.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { createEventFormatter, formatDecision, formatOutcome, formatState } from '../../src/cli/format.js';
import { approvalAction, elicitationAction, type InlineContext } from '../../src/cli/inline-actions.js';
import { createStyle } from '../../src/cli/style.js';
import type { RunEvent, RunEventBody, RunState } from '../../src/protocol/index.js';

const H = 'x\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e\u2066\u200f\r';
// Newlines and tabs are the formatter's own (and a model's paragraphs); nothing else below U+0020, no C1, no bidi.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const args = { [`k${H}`]: `v${H}`, nested: [H] };

const bodies: { [T in RunEventBody['type']]: Extract<RunEventBody, { type: T }> } = {
  'run-started': { type: 'run-started', agentName: H },
  'retriever-error': { type: 'retriever-error', message: H },
  'step-started': { type: 'step-started', step: 1 },
  text: { type: 'text', step: 1, text: H },
  'tool-call': { type: 'tool-call', step: 1, toolCallId: H, toolName: H, args },
  'tool-started': { type: 'tool-started', step: 1, toolCallId: H, toolName: H } as Extract<
    RunEventBody,
    { type: 'tool-started' }
  >,
  'tool-progress': { type: 'tool-progress', toolCallId: H, progress: { message: H } } as unknown as Extract<
    RunEventBody,
    { type: 'tool-progress' }
  >,
  'tool-result': {
    type: 'tool-result',
    step: 1,
    toolCallId: H,
    toolName: H,
    outcome: 'error',
    output: { error: true, message: H },
  } as Extract<RunEventBody, { type: 'tool-result' }>,
  'approval-requested': { type: 'approval-requested', step: 1, toolCallId: H, toolName: H, args, token: H },
  'approval-decided': {
    type: 'approval-decided',
    toolCallId: H,
    toolName: H,
    approved: false,
    reason: H,
    approver: H,
  },
  'approval-refused': { type: 'approval-refused', toolCallId: H, toolName: H, approver: H, reason: H },
  'tool-result-requested': { type: 'tool-result-requested', step: 1, toolCallId: H, toolName: H, args },
  'step-finished': { type: 'step-finished', step: 1, finishReason: H, usage },
  'mcp-tools-listed': { type: 'mcp-tools-listed', server: H, version: H, tools: 1, skipped: 1 },
  'mcp-server-failed': { type: 'mcp-server-failed', server: H, reason: H, message: H },
  'mcp-tools-collided': { type: 'mcp-tools-collided', collisions: [{ name: H, tools: [H, H] }], more: 1 },
  'elicitation-requested': {
    type: 'elicitation-requested',
    id: H,
    toolCallId: H,
    toolName: H,
    serverName: H,
    message: H,
    requestedSchema: { type: 'object', properties: { [H]: { type: 'string', description: H, title: H } } },
    token: H,
  },
  'elicitation-answered': { type: 'elicitation-answered', id: H, action: 'decline', responder: H },
  'continued-as-new': { type: 'continued-as-new', generation: 2 },
  finished: { type: 'finished', text: H, finishReason: H, stopReason: H },
  cancelled: { type: 'cancelled' },
  failed: { type: 'failed', message: H, errorType: H },
};

const safe = (text: string) => expect(text.replace(/[\n\t]/g, '')).not.toMatch(UNSAFE);

describe('hostile text through every CLI output path', () => {
  it('watch: every event type, with and without the commands that answer it', () => {
    for (const options of [{}, { runId: H, timestamps: true }]) {
      const format = createEventFormatter(options);
      Object.values(bodies).forEach((body, i) => {
        const event = { ...body, seq: i + 1, at: '2026-01-02T03:04:05.678Z' } as RunEvent;
        const text = format(event);
        safe(text);
      });
    }
  });

  it('state: fields, claims, pending requests, running tools, the failure (cause) and decisions', () => {
    const state: RunState = {
      status: 'waiting',
      step: 1,
      usage,
      pendingApprovals: [{ toolCallId: H, toolName: H, args, step: 1, requestedAt: H, expiresAt: H, token: H }],
      pendingToolResults: [{ toolCallId: H, toolName: H, args, step: 1 }] as unknown as RunState['pendingToolResults'],
      pendingElicitations: [
        {
          id: H,
          toolCallId: H,
          toolName: H,
          serverName: H,
          message: H,
          requestedSchema: { type: 'object', properties: { [H]: { type: 'string', description: H } } },
          requestedAt: H,
          expiresAt: H,
          token: H,
        },
      ] as unknown as RunState['pendingElicitations'],
      runningTools: [{ toolCallId: H, toolName: H, startedAt: H, progress: { value: H } }] as RunState['runningTools'],
      messageCount: 1,
      lastEventSeq: 1,
      mcpServers: [{ server: H, status: 'failed', reason: H, message: H }],
      claims: { userId: H, context: { [H]: H, claims: H } },
    };
    const text = formatState(H, state, { command: 'durable-agent' });
    expect(text).toContain('claimed user:');
    safe(text);
    const outcome = formatOutcome({
      answer: H,
      failure: H,
      decisions: [
        { toolName: H, approved: false, approver: H, reason: H } as Parameters<
          typeof formatOutcome
        >[0]['decisions'][number],
      ],
    });
    expect(outcome.join('\n')).toContain('failure:');
    safe(outcome.join('\n'));
    safe(formatDecision({ toolName: H, approved: true, approver: H, reason: H }));
  });

  it('the inline approval and elicitation prompts, their rejections and the recorded answers', async () => {
    const seen: string[] = [];
    const rejected = () => new RunRequestRejectedError(`refused: ${H}`, { code: 'Run.Refused' });
    let respond = 0;
    const run = {
      approve: () => Promise.resolve({ toolCallId: H, toolName: H, approved: true, approver: H, reason: H }),
      respondToElicitation: () =>
        ++respond === 1
          ? Promise.reject(rejected())
          : Promise.resolve({ id: H, action: 'decline', responder: H, answeredAt: H }),
      state: () => Promise.resolve({ pendingElicitations: [{ id: H }] }),
    } as unknown as AgentRun;
    const answers = ['y', 'd', 'd'];
    const ctx: InlineContext = {
      run,
      prompter: {
        ask: (question: string) => {
          seen.push(question);
          return Promise.resolve(answers.shift());
        },
        key: (question: string) => {
          seen.push(question);
          return Promise.resolve(answers.shift());
        },
        close: () => {},
      },
      out: (text) => seen.push(text),
      note: (text) => seen.push(text),
      style: createStyle(false),
      person: H,
    };
    const at = { seq: 1, at: '2026-01-02T03:04:05.678Z' };
    await approvalAction.answer({ ...bodies['approval-requested'], ...at }, ctx);
    await elicitationAction.answer({ ...bodies['elicitation-requested'], ...at }, ctx);
    expect(seen.join('\n')).toContain('refused: x');
    expect(seen.length).toBeGreaterThanOrEqual(5);
    safe(seen.join('\n'));
  });
});
