// The run's state and its transitions, without a server: approvals, client-side results, progress, steps, endings.
import { describe, expect, it } from 'vitest';
import type { GenerateResult } from '../../src/protocol/index.js';
import { ApprovalBook } from '../../workflows/approvals.js';
import { ClientToolBook } from '../../workflows/client-tools.js';
import { AgentRunState } from '../../workflows/run-state.js';
import { ToolSlots } from '../../workflows/tool-slots.js';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const later = new Date('2026-01-01T00:05:00.000Z');
const request = { toolCallId: 'c1', toolName: 'delete_file', args: { path: '/a' }, step: 1 };

describe('ApprovalBook', () => {
  it('opens a request, applies one decision, and records who decided and when', () => {
    const book = new ApprovalBook();
    expect(book.request(request, t0, 60_000)).toEqual({
      ...request,
      requestedAt: t0.toISOString(),
      expiresAt: '2026-01-01T00:01:00.000Z',
    });
    expect(book.list()).toHaveLength(1);
    expect(book.hasDecision('c1')).toBe(false);
    expect(book.receive({ toolCallId: 'c1', approved: true, approver: 'ada', reason: 'fine' })).toBe(true);
    expect(book.receive({ toolCallId: 'c1', approved: false })).toBe(false);
    expect(book.hasDecision('c1')).toBe(true);
    const record = book.settle('c1', later, true);
    expect(record).toEqual({
      toolCallId: 'c1',
      toolName: 'delete_file',
      approved: true,
      reason: 'fine',
      approver: 'ada',
      requestedAt: t0.toISOString(),
      decidedAt: later.toISOString(),
    });
    expect(book.list()).toEqual([]);
    expect(book.history()).toEqual([record]);
    expect(book.recordFor('c1')).toEqual(record);
    // Settled: a late duplicate is ignored.
    expect(book.receive({ toolCallId: 'c1', approved: false })).toBe(false);
  });

  it('denies on timeout with a reason that says so', () => {
    const book = new ApprovalBook();
    book.request(request, t0, 90 * 60_000);
    expect(book.settle('c1', later, false, 90 * 60_000)).toMatchObject({
      approved: false,
      timedOut: true,
      reason: 'Approval timed out after 90m without a decision.',
    });
  });

  it('keeps a decision that arrives before its request, and carries it over continue-as-new', () => {
    const book = new ApprovalBook();
    book.receive({ toolCallId: 'c1', approved: true });
    expect(book.early()).toEqual([{ toolCallId: 'c1', approved: true }]);
    const next = new ApprovalBook(book.history(), book.early());
    next.request(request, t0, undefined);
    expect(next.hasDecision('c1')).toBe(true);
    expect(next.settle('c1', t0, true).approved).toBe(true);
  });

  it('explains why an update is rejected, without changing anything', () => {
    const book = new ApprovalBook();
    expect(book.rejection({ toolCallId: 'x', approved: true })).toEqual({
      code: 'Approval.UnknownCall',
      message: "The run is not waiting for any approval (tool call 'x' is unknown).",
    });
    book.request(request, t0, undefined);
    expect(book.rejection({ toolCallId: 'x', approved: true })).toEqual({
      code: 'Approval.UnknownCall',
      message: "No pending approval for tool call 'x'. Pending: c1.",
    });
    expect(book.rejection({ toolCallId: 'c1', approved: true })).toBeUndefined();
    book.receive({ toolCallId: 'c1', approved: true });
    expect(book.rejection({ toolCallId: 'c1', approved: true })).toEqual({
      code: 'Approval.AlreadyDecided',
      message: "The approval for tool call 'c1' was already decided.",
    });
    expect(book.malformed({ toolCallId: '', approved: true })).toEqual({
      code: 'Input.Malformed',
      message: 'toolCallId must be a non-empty string.',
    });
    expect(book.malformed({ toolCallId: 'c1', approved: 'yes' as unknown as boolean })).toEqual({
      code: 'Input.Malformed',
      message: 'approved must be true or false.',
    });
  });

  it('treats an id reused in a later step as a new request', () => {
    const book = new ApprovalBook();
    book.request(request, t0, undefined);
    book.receive({ toolCallId: 'c1', approved: true });
    book.settle('c1', t0, true);
    book.request({ ...request, step: 2 }, later, undefined);
    expect(book.rejection({ toolCallId: 'c1', approved: false })).toBeUndefined();
  });
});

describe('ClientToolBook', () => {
  it('waits for a result, keeps the first submission, and consumes it', () => {
    const book = new ClientToolBook();
    expect(book.rejection({ toolCallId: 'p1', output: 1 })).toEqual({
      code: 'ToolResult.UnknownCall',
      message: "No client-side tool call 'p1' is waiting for a result.",
    });
    book.request({ toolCallId: 'p1', toolName: 'ask', args: {}, step: 1 });
    book.receive({ toolCallId: 'p1', output: 'first' });
    book.receive({ toolCallId: 'p1', output: 'second' });
    expect(book.rejection({ toolCallId: 'p1', output: 3 })).toEqual({
      code: 'ToolResult.AlreadySubmitted',
      message: "A result for tool call 'p1' was already submitted.",
    });
    expect(book.take('p1')).toEqual({ toolCallId: 'p1', output: 'first' });
    expect(book.list()).toEqual([]);
    expect(book.hasResult('p1')).toBe(false);
  });
});

const response = (overrides: Partial<GenerateResult> = {}): GenerateResult => ({
  version: 1,
  responseId: 'r1',
  messages: [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'x' } },
      ],
    },
  ],
  toolCalls: [{ toolCallId: 'c1', toolName: 'search', status: 'valid', needsApproval: false, clientSide: false }],
  finishReason: 'tool-calls',
  usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
  ...overrides,
});

describe('AgentRunState', () => {
  it('records a step: response, text and tool-call events, the tool message, the summary', () => {
    const state = new AgentRunState({ agentName: 'a', input: 'hi', userId: 'u1', context: { team: 'x' } });
    state.begin('Be brief.', [{ role: 'user', content: 'hi' }]);
    const step = state.startStep();
    const args = state.recordResponse(step, response());
    expect(args.get('c1')).toEqual({ q: 'x' });
    state.finishStep(step, response(), {
      parts: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text', value: 'ok' } }],
      outcomes: ['ok'],
    });
    expect(state.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(state.events.all().map((e) => e.type)).toEqual(['step-started', 'text', 'tool-call', 'step-finished']);
    expect(state.snapshot()).toMatchObject({ status: 'running', step: 1, messageCount: 4, lastEventSeq: 4 });
    expect(state.usage.totalTokens).toBe(5);
    expect(state.run).toEqual({ userId: 'u1', context: { team: 'x' } });
  });

  it('shows a late MCP server as listing until its listing arrives, then flags its event as late', () => {
    const state = new AgentRunState({ agentName: 'a', input: 'hi' });
    const listing = { server: 'slow', version: 'v1', tools: [], skipped: [] };
    state.listingLate('slow');
    expect(state.snapshot().mcpServers).toEqual([{ server: 'slow', status: 'listing' }]);
    expect(state.listingRefs()).toEqual([]);
    state.recordListing({ version: 1, kind: 'listed', listing }, true);
    expect(state.snapshot().mcpServers).toEqual([{ server: 'slow', status: 'listed', tools: 0, skipped: 0 }]);
    expect(state.listingRefs()).toEqual([{ server: 'slow', version: 'v1' }]);
    expect(state.events.all().at(-1)).toMatchObject({ type: 'mcp-tools-listed', server: 'slow', late: true });
    state.listingLate('hung');
    state.recordListing({ version: 1, kind: 'failed', server: 'hung', reason: 'cancelled', message: 'm' }, true);
    expect(state.snapshot().mcpServers).toContainEqual({
      server: 'hung',
      status: 'failed',
      reason: 'cancelled',
      message: 'm',
    });
    expect(state.events.all().at(-1)).toMatchObject({ type: 'mcp-server-failed', server: 'hung', late: true });
    state.recordListing({ version: 1, kind: 'listed', listing: { ...listing, server: 'fast' } });
    expect(state.events.all().at(-1)).not.toHaveProperty('late');
  });

  it('shows progress only for running tools and only when newer', () => {
    const state = new AgentRunState({ agentName: 'a', input: 'hi' });
    state.recordProgress({ toolCallId: 'c1', seq: 1, value: 'early' });
    expect(state.events.lastSeq).toBe(0);
    state.toolStarted(1, {
      toolCallId: 'c1',
      toolName: 'count',
      status: 'valid',
      needsApproval: false,
      clientSide: false,
    });
    state.recordProgress({ toolCallId: 'c1', seq: 2, value: 'two' });
    state.recordProgress({ toolCallId: 'c1', seq: 1, value: 'stale' });
    state.recordProgress(null);
    state.recordProgress({ toolCallId: 'c1', seq: 'x' } as never);
    expect(state.snapshot().runningTools[0]?.progress).toEqual({ toolCallId: 'c1', seq: 2, value: 'two' });
    expect(state.events.all().filter((e) => e.type === 'tool-progress')).toHaveLength(1);
    state.toolFinished('c1');
    expect(state.snapshot().runningTools).toEqual([]);
  });

  it('is waiting while a person or the client owes an answer, and lists nothing pending once cancelled', () => {
    const state = new AgentRunState({ agentName: 'a', input: 'hi' });
    state.approvals.request(request, t0, undefined);
    state.clientTools.request({ toolCallId: 'p1', toolName: 'ask', args: {}, step: 1 });
    expect(state.snapshot().status).toBe('waiting');
    state.cancel();
    expect(state.snapshot()).toMatchObject({ status: 'cancelled', pendingApprovals: [], pendingToolResults: [] });
    expect(state.events.all().at(-1)?.type).toBe('cancelled');
  });

  it('starts from what a previous execution carried over', () => {
    const first = new AgentRunState({ agentName: 'a', input: 'hi' });
    first.begin('', [{ role: 'user', content: 'hi' }]);
    first.events.emit({ type: 'run-started', agentName: 'a' });
    const next = new AgentRunState({
      agentName: 'a',
      input: 'hi',
      continuation: {
        description: { version: 2, agentName: 'a', systemPrompt: '', maxSteps: 3, approval: {} },
        messages: first.messages,
        events: first.events.all(),
        steps: [],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        approvals: [],
        earlyApprovals: [{ toolCallId: 'c9', approved: false }],
        earlyToolResults: [{ toolCallId: 'p9', output: 1 }],
        generation: 1,
      },
    });
    expect(next.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(next.events.lastSeq).toBe(1);
    expect(next.usage.totalTokens).toBe(2);
    expect(next.approvals.early()).toEqual([{ toolCallId: 'c9', approved: false }]);
    expect(next.clientTools.hasResult('p9')).toBe(true);
  });
});

describe('ToolSlots', () => {
  it('lets `limit` calls through at once and hands freed slots over in order', async () => {
    const slots = new ToolSlots(2);
    expect(slots.acquire()).toBeUndefined();
    expect(slots.acquire()).toBeUndefined();
    const order: string[] = [];
    const third = slots.acquire()!.then(() => order.push('third'));
    const fourth = slots.acquire()!.then(() => order.push('fourth'));
    slots.release();
    await third;
    expect(order).toEqual(['third']);
    slots.release();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    slots.release();
    slots.release();
    expect(slots.acquire()).toBeUndefined();
  });
});
