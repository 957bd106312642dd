// The mapping from a run's stream to `useChat`'s UI message stream, checked with the AI SDK's own pieces: every
// chunk passes `uiMessageChunkSchema`, and `readUIMessageStream` builds the message a page would show. Covers the
// live model deltas (text, reasoning, tool input), a retried step's reset, and a final text that supersedes them.
import { safeValidateTypes } from '@ai-sdk/provider-utils';
import { uiMessageChunkSchema, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { UiMessageChunkMapper, type WebStreamPart } from '../../src/http/ui-message-chunks.js';
import type { RunEventBody } from '../../src/protocol/index.js';
import { wireParts, type Piece } from '../support/delta-parts.js';
import { messageOf, textOf } from '../support/http-chat.js';

/** Numbers parts as the run's stream does: one offset for every item, events with their own seq. */
function stream(items: Array<RunEventBody | { deltas: WebStreamPart & { type: 'deltas' } }>): WebStreamPart[] {
  let seq = 0;
  return items.map((item, offset) =>
    'deltas' in item
      ? { ...item.deltas, offset }
      : { type: 'event', offset, event: { ...item, seq: ++seq, at: '2026-01-01T00:00:00Z' } as never },
  );
}

const deltas = (step: number, attempt: number, parts: Piece[]) => ({
  deltas: {
    type: 'deltas' as const,
    offset: 0,
    deltas: { type: 'deltas' as const, step, attempt, parts: wireParts(parts) },
  },
});
const reset = (step: number, attempt: number) => ({
  deltas: { type: 'deltas' as const, offset: 0, deltas: { type: 'reset-step' as const, step, attempt } },
});
const text = (id: string, t: string): Piece => ({ id, kind: 'text', text: t });
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

async function mapped(parts: WebStreamPart[]): Promise<UIMessageChunk[]> {
  const mapper = new UiMessageChunkMapper();
  const chunks: UIMessageChunk[] = [{ type: 'start' }, ...parts.flatMap((part) => mapper.map(part))];
  for (const chunk of chunks) {
    const result = await safeValidateTypes({ value: chunk, schema: uiMessageChunkSchema });
    expect(result.success, JSON.stringify(chunk)).toBe(true);
  }
  return chunks;
}

describe('UI message chunks of a run', () => {
  it('maps a run with an approved tool call to the message useChat shows', async () => {
    const chunks = await mapped(
      stream([
        { type: 'run-started', agentName: 'files' },
        { type: 'step-started', step: 1 },
        { type: 'text', step: 1, text: 'Deleting.' },
        { type: 'tool-call', step: 1, toolCallId: 'c1', toolName: 'delete_file', args: { path: 'a' } },
        {
          type: 'approval-requested',
          step: 1,
          toolCallId: 'c1',
          toolName: 'delete_file',
          args: { path: 'a' },
          token: 'tok',
        },
        { type: 'approval-decided', toolCallId: 'c1', toolName: 'delete_file', approved: true },
        { type: 'tool-started', step: 1, toolCallId: 'c1', toolName: 'delete_file' },
        { type: 'tool-progress', toolCallId: 'c1', progressSeq: 1, value: { done: 1 } },
        { type: 'tool-result', step: 1, toolCallId: 'c1', toolName: 'delete_file', outcome: 'ok', output: 'deleted a' },
        { type: 'step-finished', step: 1, finishReason: 'tool-calls', usage },
        { type: 'step-started', step: 2 },
        { type: 'text', step: 2, text: ' Done.' },
        { type: 'step-finished', step: 2, finishReason: 'stop', usage },
        { type: 'finished', text: ' Done.', finishReason: 'stop', stopReason: 'finished' },
      ]),
    );
    expect(chunks.find((c) => c.type === 'tool-approval-request')).toEqual({
      type: 'tool-approval-request',
      approvalId: 'approval-c1',
      toolCallId: 'c1',
      signature: 'tok',
    });
    const message = await messageOf(chunks);
    expect(textOf(message)).toBe('Deleting. Done.');
    expect(message.parts.find((p) => p.type === 'tool-delete_file')).toMatchObject({
      state: 'output-available',
      output: 'deleted a',
      approval: { id: 'approval-c1', approved: true },
    });
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('streams deltas as they come and adds only what the final text has more', async () => {
    const chunks = await mapped(
      stream([
        { type: 'step-started', step: 1 },
        deltas(1, 1, [text('t0', 'Hel'), { id: 'r0', kind: 'reasoning', text: 'hmm' }]),
        deltas(1, 1, [text('t0', 'lo')]),
        { type: 'text', step: 1, text: 'Hello world' },
        { type: 'step-finished', step: 1, finishReason: 'stop', usage },
      ]),
    );
    expect(chunks.filter((c) => c.type === 'text-delta').map((c) => 'delta' in c && c.delta)).toEqual([
      'Hel',
      'lo',
      ' world',
    ]);
    const message = await messageOf(chunks);
    expect(textOf(message)).toBe('Hello world');
    expect(message.parts.filter((p) => p.type === 'reasoning')).toMatchObject([{ text: 'hmm', state: 'done' }]);
  });

  it("drops a failed attempt's deltas with reset-step, and ignores late pieces of that attempt", async () => {
    const chunks = await mapped(
      stream([
        { type: 'step-started', step: 1 },
        deltas(1, 1, [text('t0', 'broken ans')]),
        reset(1, 2),
        deltas(1, 1, [text('t0', 'late piece')]),
        deltas(1, 2, [text('t0', 'Good')]),
        { type: 'text', step: 1, text: 'Good answer' },
        { type: 'step-finished', step: 1, finishReason: 'stop', usage },
      ]),
    );
    expect(chunks.filter((c) => c.type === 'reset-step')).toHaveLength(1);
    expect(textOf(await messageOf(chunks))).toBe('Good answer');
  });

  it('resets the step when the final text is not what the deltas showed', async () => {
    const chunks = await mapped(
      stream([
        { type: 'step-started', step: 1 },
        deltas(1, 1, [text('t0', 'draft')]),
        { type: 'text', step: 1, text: 'final' },
        { type: 'step-finished', step: 1, finishReason: 'stop', usage },
      ]),
    );
    expect(chunks.map((c) => c.type)).toContain('reset-step');
    expect(textOf(await messageOf(chunks))).toBe('final');
  });

  it("streams a tool call's input and then its parsed arguments", async () => {
    const chunks = await mapped(
      stream([
        { type: 'step-started', step: 1 },
        deltas(1, 1, [{ id: 'c1', kind: 'tool-input', text: '{"path":', toolName: 'read' }]),
        deltas(1, 1, [{ id: 'c1', kind: 'tool-input', text: '"a"}' }]),
        { type: 'tool-call', step: 1, toolCallId: 'c1', toolName: 'read', args: { path: 'a' } },
        {
          type: 'tool-result',
          step: 1,
          toolCallId: 'c1',
          toolName: 'read',
          outcome: 'error',
          output: { message: 'no such file' },
        },
      ]),
    );
    expect(chunks.map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-delta',
      'tool-input-available',
      'tool-output-error',
    ]);
    expect((await messageOf(chunks)).parts.find((p) => p.type === 'tool-read')).toMatchObject({
      state: 'output-error',
      input: { path: 'a' },
      errorText: 'no such file',
    });
  });

  it('shows an elicitation as a data part that becomes its answer, and ends on cancel or failure', async () => {
    const asked: RunEventBody = {
      type: 'elicitation-requested',
      id: 'q1',
      toolCallId: 'c1',
      toolName: 'mcp_tool',
      serverName: 'srv',
      message: 'Which city?',
      requestedSchema: { type: 'object', properties: { city: { type: 'string' } } },
      token: 'q-token',
    };
    const chunks = await mapped(stream([asked]));
    expect((await messageOf(chunks)).parts).toMatchObject([
      { type: 'data-elicitation', id: 'q1', data: { message: 'Which city?', token: 'q-token', status: 'pending' } },
    ]);
    const answered = await mapped(
      stream([asked, { type: 'elicitation-answered', id: 'q1', action: 'accept' }, { type: 'cancelled' }]),
    );
    const message = await messageOf(answered.slice(0, -1));
    expect(message.parts).toHaveLength(1);
    expect(message.parts[0]).toMatchObject({ type: 'data-elicitation', data: { status: 'accept' } });
    expect(message.parts[0]).not.toHaveProperty('data.token');
    expect(answered.at(-1)).toMatchObject({ type: 'abort' });
    expect((await mapped(stream([{ type: 'failed', message: 'boom' }]))).at(-1)).toEqual({
      type: 'error',
      errorText: 'The run failed: boom',
    });
  });

  it("drops text a retried attempt streamed when the step recorded none, and keeps the step's tool call", async () => {
    const chunks = await mapped(
      stream([
        { type: 'step-started', step: 1 },
        deltas(1, 1, [text('t0', 'Let me thi')]),
        { type: 'tool-call', step: 1, toolCallId: 'c1', toolName: 'read', args: { path: 'a' } },
        { type: 'tool-result', step: 1, toolCallId: 'c1', toolName: 'read', outcome: 'ok', output: 'A' },
        { type: 'step-finished', step: 1, finishReason: 'tool-calls', usage },
      ]),
    );
    const message = await messageOf(chunks);
    expect(textOf(message)).toBe('');
    expect(message.parts.find((p) => p.type === 'tool-read')).toMatchObject({ state: 'output-available', output: 'A' });
  });

  it("says the live stream is unavailable, then shows the step's recorded text whole", async () => {
    const parts = stream([
      { type: 'step-started', step: 1 },
      deltas(1, 1, [text('t0', 'Sunny in ')]),
      { type: 'text', step: 1, text: 'Sunny in Oslo.' },
      { type: 'step-finished', step: 1, finishReason: 'stop', usage },
      { type: 'finished', text: 'Sunny in Oslo.', finishReason: 'stop', stopReason: 'finished' },
    ]);
    parts.splice(2, 0, { type: 'live-unavailable', offset: 2, reason: 'Redis is down' });
    const chunks = await mapped(parts);
    expect(chunks.filter((c) => c.type === 'data-live-unavailable')).toEqual([
      { type: 'data-live-unavailable', id: 'live-unavailable-2', data: { reason: 'Redis is down' } },
    ]);
    const message = await messageOf(chunks);
    expect(textOf(message)).toBe('Sunny in Oslo.');
    expect(message.parts.find((p) => p.type === 'data-live-unavailable')).toMatchObject({
      data: { reason: 'Redis is down' },
    });
  });
});
