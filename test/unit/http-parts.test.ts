// The HTTP layer's small parts against hostile input: interrupt ids that are not the handler's, chat bodies of
// the wrong shape or size, and the wait detection that ends a response only when the run waits for the page.
import { describe, expect, it } from 'vitest';
import { interruptIdOf, parseInterruptId } from '../../src/http/ag-ui-events.js';
import { parseChatRequest } from '../../src/http/chat-request.js';
import { HttpRefusal } from '../../src/http/http-refusal.js';
import { WaitTracker } from '../../src/http/wait-tracker.js';
import type { RunEvent, RunEventBody } from '../../src/protocol/index.js';

const limits = { maxMessageBytes: 100 };
const event = (body: RunEventBody, seq = 1): RunEvent => ({ ...body, seq, at: '' }) as RunEvent;

function refusal(fn: () => unknown): { status: number; code: string } {
  try {
    fn();
  } catch (error) {
    if (HttpRefusal.isInstance(error)) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('not refused');
}

describe('http parts', () => {
  it('reads back only its own interrupt ids', () => {
    const ref = { kind: 'approval' as const, id: 'call-1', token: 'tok', offset: 12 };
    expect(parseInterruptId(interruptIdOf(ref))).toEqual(ref);
    for (const hostile of [
      '',
      'approval-call-1',
      'da1.',
      'da1.!!!',
      `da1.${Buffer.from('{"k":"approval","i":"x","t":"y","o":-1}').toString('base64url')}`,
      `da1.${Buffer.from('{"k":"root","i":"x","t":"y","o":1}').toString('base64url')}`,
      `da1.${Buffer.from('{"k":"approval","i":1,"t":"y","o":1}').toString('base64url')}`,
      `da1.${Buffer.from('[1,2]').toString('base64url')}`,
      `da1.${'A'.repeat(5_000)}`,
    ]) {
      expect(parseInterruptId(hostile), hostile.slice(0, 40)).toBeUndefined();
    }
  });

  it('takes the last user message, or the approval responses of the last assistant message', () => {
    const user = { id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
    expect(parseChatRequest({ id: 'c1', messages: [user] }, limits)).toEqual({
      kind: 'message',
      chatId: 'c1',
      text: 'hi',
      messageId: 'u',
    });
    const assistant = {
      id: 'a',
      role: 'assistant',
      metadata: { durableAgent: { offset: 7 } },
      parts: [
        { type: 'text', text: 'ok' },
        {
          type: 'tool-x',
          toolCallId: 'c',
          state: 'approval-responded',
          approval: { id: 'approval-c', approved: true, signature: 't' },
        },
        // An approval already carried through is history: never decided again from here.
        { type: 'tool-y', toolCallId: 'd', state: 'output-available', approval: { id: 'approval-d', approved: true } },
      ],
    };
    expect(parseChatRequest({ id: 'c1', messages: [user, assistant] }, limits)).toEqual({
      kind: 'approvals',
      chatId: 'c1',
      from: 7,
      approvals: [{ toolCallId: 'c', approvalId: 'approval-c', approved: true, token: 't' }],
    });
    const hostileOffset = { ...assistant, metadata: { durableAgent: { offset: -5 } } };
    expect(parseChatRequest({ id: 'c1', messages: [user, hostileOffset] }, limits)).toMatchObject({ from: 0 });
  });

  it('refuses bodies of the wrong shape or size', () => {
    const user = (text: string) => ({ id: 'u', role: 'user', parts: [{ type: 'text', text }] });
    expect(refusal(() => parseChatRequest(null, limits))).toEqual({ status: 400, code: 'Input.Malformed' });
    expect(refusal(() => parseChatRequest({ id: 'c', messages: 'x' }, limits))).toEqual({
      status: 400,
      code: 'Input.Malformed',
    });
    expect(refusal(() => parseChatRequest({ id: 'a/b', messages: [user('x')] }, limits))).toMatchObject({
      code: 'Input.Malformed',
    });
    expect(refusal(() => parseChatRequest({ id: 'c', messages: [user('')] }, limits))).toMatchObject({
      code: 'Http.Unsupported',
    });
    // UTF-8 bytes, not characters: 40 × 3 bytes is over 100.
    expect(refusal(() => parseChatRequest({ id: 'c', messages: [user('€'.repeat(40))] }, limits))).toEqual({
      status: 413,
      code: 'Input.TooLarge',
    });
    const many = Array.from({ length: 1_001 }, () => user('x'));
    expect(refusal(() => parseChatRequest({ id: 'c', messages: many }, limits))).toMatchObject({
      code: 'Input.Malformed',
    });
    const badApproval = {
      id: 'a',
      role: 'assistant',
      parts: [{ type: 'tool-x', toolCallId: 'c', state: 'approval-responded', approval: { id: 'x', approved: 'yes' } }],
    };
    expect(refusal(() => parseChatRequest({ id: 'c', messages: [badApproval] }, limits))).toMatchObject({
      code: 'Input.Malformed',
    });
    const noApproval = { id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] };
    expect(refusal(() => parseChatRequest({ id: 'c', messages: [noApproval] }, limits))).toMatchObject({
      code: 'Http.Unsupported',
    });
  });

  it('waits for the page only when nothing but people holds the run', () => {
    const useChat = new WaitTracker();
    const agUi = new WaitTracker(true);
    const see = (body: RunEventBody) => [useChat, agUi].forEach((t) => t.see(event(body)));
    see({ type: 'tool-call', step: 1, toolCallId: 'a', toolName: 't', args: {} });
    see({ type: 'tool-started', step: 1, toolCallId: 'b', toolName: 'mcp' });
    see({ type: 'approval-requested', step: 1, toolCallId: 'a', toolName: 't', args: {} });
    // Another tool still runs: not yet.
    expect([useChat.waitingForPage, agUi.waitingForPage]).toEqual([false, false]);
    see({
      type: 'elicitation-requested',
      id: 'q',
      toolCallId: 'b',
      toolName: 'mcp',
      serverName: 's',
      message: '?',
      requestedSchema: {},
    });
    expect([useChat.waitingForPage, agUi.waitingForPage]).toEqual([true, true]);
    see({ type: 'approval-decided', toolCallId: 'a', toolName: 't', approved: true });
    // Only the question is left: useChat keeps its response open (it is answered by its own POST), AG-UI ends.
    expect([useChat.waitingForPage, agUi.waitingForPage]).toEqual([false, true]);
    see({ type: 'elicitation-answered', id: 'q', action: 'accept' });
    expect([useChat.waitingForPage, agUi.waitingForPage]).toEqual([false, false]);
  });
});
