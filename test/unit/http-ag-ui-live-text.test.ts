// AG-UI text and tool input from live model deltas, judged by AG-UI's own client: each response's events are served to `HttpAgent`
// of `@ag-ui/client` (which verifies every sequence it receives and applies it to its messages) through its `fetch`
// option, and the thread the client ends with is asserted. Covers the live text, a retried attempt's void text
// dropped with a MESSAGES_SNAPSHOT, a provider that rewrote its output, a client that drops mid-message and runs
// again (it goes on with the message it holds), one that missed the retry while away, a stop mid-answer, and a
// tool call's input streamed as its arguments (retried with the same call id, repaired, rejoined).
import { EventType, HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import type { AGUIEvent } from '@ag-ui/core';
import { describe, expect, it } from 'vitest';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import { AgUiEventMapper } from '../../src/http/ag-ui-events.js';
import { markSent, positionOf } from '../../src/http/ag-ui-thread.js';
import type { RunEventBody } from '../../src/protocol/index.js';
import { wireParts, type Piece } from '../support/delta-parts.js';

const USAGE = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A turn's stream as parts with offsets 0, 1, 2, …: events and delta batches. */
type DeltaItem = { step: number; attempt: number; text?: string; reset?: true; input?: Omit<Piece, 'kind'> };
function turn(...items: Array<RunEventBody | DeltaItem>) {
  return items.map((item, offset): RunStreamPart => {
    if ('type' in item) return { type: 'event', offset, event: { ...item, seq: offset + 1, at: '' } as never };
    if (item.reset) {
      return { type: 'deltas', offset, deltas: { type: 'reset-step', step: item.step, attempt: item.attempt } };
    }
    const parts = wireParts(
      item.input ? [{ ...item.input, kind: 'tool-input' }] : [{ id: 'txt-0', kind: 'text', text: item.text ?? '' }],
    );
    return { type: 'deltas', offset, deltas: { type: 'deltas', step: item.step, attempt: item.attempt, parts } };
  });
}

const stepStarted = (step: number): RunEventBody => ({ type: 'step-started', step });
const text = (step: number, value: string): RunEventBody => ({ type: 'text', step, text: value });
const stepFinished = (step: number): RunEventBody => ({
  type: 'step-finished',
  step,
  finishReason: 'stop',
  usage: USAGE,
});
const finished = (value: string): RunEventBody => ({
  type: 'finished',
  text: value,
  finishReason: 'stop',
  stopReason: 'done',
});

/**
 * One AG-UI client on one thread. `respond` answers each of its requests as the route does: the mapper built from the
 * request's messages, the parts before the client's position seen, the rest mapped (up to `upTo`, for a stream still
 * running), the response ended by the mapper's `closed()` when the parts run out without a terminal event.
 */
function client(parts: RunStreamPart[]) {
  let upTo = parts.length;
  const responses: AGUIEvent[][] = [];
  const agent = new HttpAgent({
    url: 'http://agui.test/api/agui',
    threadId: 'thread-1',
    fetch: async (_url: string, init: RequestInit) => {
      const input = JSON.parse(init.body as string) as { runId: string; messages: Message[] };
      const position = positionOf(input.messages);
      const snapshot = position ? undefined : markSent(input.messages, 1);
      const from = position?.offset ?? 0;
      const mapper = new AgUiEventMapper({
        threadId: 'thread-1',
        runId: input.runId,
        turn: 1,
        messages: input.messages,
      });
      const events = mapper.start(snapshot);
      for (const part of parts.slice(0, upTo)) {
        if (part.offset < from) mapper.seen(part);
        else events.push(...mapper.map(part, part.offset + 1));
        if (mapper.ended) break;
      }
      if (!mapper.ended && upTo === parts.length) events.push(...mapper.closed());
      responses.push(events);
      const body = events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    },
  });
  agent.addMessage({ id: 'u1', role: 'user', content: 'write' });
  return {
    agent,
    responses,
    /** Runs the client once, the response holding the parts before `until` (all of them by default). */
    async run(until = parts.length): Promise<BaseEvent[]> {
      upTo = until;
      const events: BaseEvent[] = [];
      await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
      return events;
    },
    /** The thread as role and text. */
    get thread(): string[] {
      return agent.messages.map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : ''}`);
    },
  };
}

const deltasOf = (events: BaseEvent[], type: EventType) =>
  events.flatMap((e) => (e.type === type ? [(e as unknown as { delta: string }).delta] : []));
const contents = (events: BaseEvent[]) => deltasOf(events, EventType.TEXT_MESSAGE_CONTENT);

const toolCall = (step: number, args: Record<string, string>): RunEventBody => ({
  type: 'tool-call',
  step,
  toolCallId: 'c1',
  toolName: 'search',
  args,
});
const toolResult = (step: number): RunEventBody => ({
  type: 'tool-result',
  step,
  toolCallId: 'c1',
  toolName: 'search',
  outcome: 'ok',
  output: 'found',
});
/** The tool calls of the thread's assistant messages, as name and arguments. */
const callsOf = (messages: Message[]) =>
  messages
    .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
    .map((c) => `${c.function.name} ${c.function.arguments}`);

describe('AG-UI text and tool input from live model deltas, applied by @ag-ui/client', () => {
  it('streams the step as it is written, and the final text adds only what the deltas missed', async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, text: 'Hel' },
      { step: 1, attempt: 1, text: 'lo' },
      text(1, 'Hello world'),
      stepFinished(1),
      finished('Hello world'),
    );
    const thread = client(parts);
    const events = await thread.run();
    expect(contents(events)).toEqual(['Hel', 'lo', ' world']);
    expect(events.filter((e) => e.type === EventType.TEXT_MESSAGE_START)).toHaveLength(1);
    expect(thread.thread).toEqual(['user: write', 'assistant: Hello world']);
  });

  it('a retried attempt voids what the first one streamed: the client drops it and shows the answer once', async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, text: 'The answ' },
      { step: 1, attempt: 2, reset: true },
      { step: 1, attempt: 2, text: 'The answer' },
      { step: 1, attempt: 2, text: ' is 42.' },
      text(1, 'The answer is 42.'),
      stepFinished(1),
      finished('The answer is 42.'),
    );
    const thread = client(parts);
    const events = await thread.run();
    // The void message ended, then a snapshot of the thread without it.
    const types = events.map((e) => e.type);
    const snapshots = types.flatMap((type, i) => (type === EventType.MESSAGES_SNAPSHOT ? [i] : []));
    expect(snapshots).toHaveLength(2);
    expect(types[snapshots[1]! - 1]).toBe(EventType.TEXT_MESSAGE_END);
    expect(thread.thread).toEqual(['user: write', 'assistant: The answer is 42.']);
    // The thread the client sends next still says where it is (the marks survive the snapshot).
    expect(positionOf(thread.agent.messages)).toEqual({ turn: 1, offset: 6 });
  });

  it('a provider that rewrote its output: the final text replaces what streamed', async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, text: 'Draft tex' },
      text(1, 'Final text.'),
      stepFinished(1),
      finished('Final text.'),
    );
    const thread = client(parts);
    await thread.run();
    expect(thread.thread).toEqual(['user: write', 'assistant: Final text.']);
  });

  it('keeps earlier messages and tool calls through a snapshot, and a void step-two attempt leaves step one alone', async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, text: 'Looking.' },
      text(1, 'Looking.'),
      { type: 'tool-call', step: 1, toolCallId: 'c1', toolName: 'search', args: { q: 'x' } },
      { type: 'tool-result', step: 1, toolCallId: 'c1', toolName: 'search', outcome: 'ok', output: 'found' },
      stepFinished(1),
      stepStarted(2),
      { step: 2, attempt: 1, text: 'It is' },
      { step: 2, attempt: 2, reset: true },
      { step: 2, attempt: 2, text: 'It is found.' },
      text(2, 'It is found.'),
      stepFinished(2),
      finished('It is found.'),
    );
    const thread = client(parts);
    await thread.run();
    expect(thread.thread).toEqual([
      'user: write',
      'assistant: Looking.',
      'assistant: ',
      'tool: found',
      'assistant: It is found.',
    ]);
    expect(thread.agent.messages[2]).toMatchObject({ toolCalls: [{ id: 'c1', function: { name: 'search' } }] });
  });

  it('a client that drops mid-message and runs again goes on with the message it holds', async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, text: 'One, ' },
      { step: 1, attempt: 1, text: 'two, ' },
      { step: 1, attempt: 1, text: 'three.' },
      text(1, 'One, two, three.'),
      stepFinished(1),
      finished('One, two, three.'),
    );
    const thread = client(parts);
    // The first response carries the turn up to 'two, ' (the connection drops there).
    await thread.run(3);
    expect(thread.thread).toEqual(['user: write', 'assistant: One, two, ']);
    expect(positionOf(thread.agent.messages)).toEqual({ turn: 1, offset: 3 });
    const again = await thread.run();
    expect(contents(again)).toEqual(['three.']);
    expect(thread.thread).toEqual(['user: write', 'assistant: One, two, three.']);
  });

  it('a client away while the attempt was retried: its void text is dropped when it comes back', async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, text: 'Wrong sta' },
      { step: 1, attempt: 2, reset: true },
      { step: 1, attempt: 2, text: 'Right answer.' },
      text(1, 'Right answer.'),
      stepFinished(1),
      finished('Right answer.'),
    );
    const thread = client(parts);
    await thread.run(2);
    expect(thread.thread).toEqual(['user: write', 'assistant: Wrong sta']);
    // It comes back after the whole turn: the parts it missed are read past, the void message dropped, the rest sent.
    const again = await thread.run();
    expect(again.some((e) => e.type === EventType.MESSAGES_SNAPSHOT)).toBe(true);
    expect(thread.thread).toEqual(['user: write', 'assistant: Right answer.']);
  });

  it('a run stopped mid-answer keeps what it wrote, and the response ends every message it opened', async () => {
    const parts = turn(stepStarted(1), { step: 1, attempt: 1, text: 'Partial' }, { type: 'cancelled' });
    const thread = client(parts);
    const events = await thread.run();
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'cancelled' } });
    expect(thread.thread).toEqual(['user: write', 'assistant: Partial']);
  });

  it("streams a tool call's input as its arguments, and the call ends with the step's final message", async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, input: { id: 'c1', toolName: 'search', text: '{"q":' } },
      { step: 1, attempt: 1, input: { id: 'c1', text: '"x"}' } },
      toolCall(1, { q: 'x' }),
      toolResult(1),
      stepFinished(1),
      finished(''),
    );
    const thread = client(parts);
    const events = await thread.run();
    expect(deltasOf(events, EventType.TOOL_CALL_ARGS)).toEqual(['{"q":', '"x"}']);
    expect(events.filter((e) => e.type === EventType.TOOL_CALL_START)).toHaveLength(1);
    expect(callsOf(thread.agent.messages)).toEqual(['search {"q":"x"}']);
    expect(thread.thread).toEqual(['user: write', 'assistant: ', 'tool: found']);
  });

  it("a retry that reuses the call id with other input: the client ends with the retry's call only", async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, input: { id: 'c1', toolName: 'search', text: '{"q":"wr' } },
      { step: 1, attempt: 2, reset: true },
      { step: 1, attempt: 2, input: { id: 'c1', toolName: 'search', text: '{"q":"right"}' } },
      toolCall(1, { q: 'right' }),
      toolResult(1),
      stepFinished(1),
      finished(''),
    );
    const thread = client(parts);
    await thread.run();
    expect(callsOf(thread.agent.messages)).toEqual(['search {"q":"right"}']);
  });

  it('a call made with other arguments than streamed (repaired input): written again whole', async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, input: { id: 'c1', toolName: 'search', text: '{"q": "x"' } },
      toolCall(1, { q: 'x', page: '1' }),
      stepFinished(1),
      finished(''),
    );
    const thread = client(parts);
    await thread.run();
    expect(callsOf(thread.agent.messages)).toEqual(['search {"q":"x","page":"1"}']);
  });

  it("a client that drops mid-input goes on with the call it holds; one away during the retry gets the retry's call", async () => {
    const parts = turn(
      stepStarted(1),
      { step: 1, attempt: 1, input: { id: 'c1', toolName: 'search', text: '{"q":"wr' } },
      { step: 1, attempt: 2, reset: true },
      { step: 1, attempt: 2, input: { id: 'c1', toolName: 'search', text: '{"q":' } },
      { step: 1, attempt: 2, input: { id: 'c1', text: '"right"}' } },
      toolCall(1, { q: 'right' }),
      stepFinished(1),
      finished(''),
    );
    const thread = client(parts);
    await thread.run(2);
    expect(callsOf(thread.agent.messages)).toEqual(['search {"q":"wr']);
    await thread.run(4);
    expect(callsOf(thread.agent.messages)).toEqual(['search {"q":']);
    const again = await thread.run();
    expect(deltasOf(again, EventType.TOOL_CALL_ARGS)).toEqual(['"right"}']);
    expect(callsOf(thread.agent.messages)).toEqual(['search {"q":"right"}']);
  });

  it('a live stream that becomes unavailable: a CUSTOM event says so, then the final text completes the message', async () => {
    const parts = turn(stepStarted(1), { step: 1, attempt: 1, text: 'Hel' }, text(1, 'Hello world'), stepFinished(1));
    parts.splice(2, 0, { type: 'live-unavailable', offset: 2, reason: 'Redis is down' });
    parts.push({ type: 'event', offset: 5, event: { ...finished('Hello world'), seq: 6, at: '' } as never });
    for (const [offset, part] of parts.entries()) part.offset = offset;
    const thread = client(parts);
    const events = await thread.run();
    expect(events.filter((e) => e.type === EventType.CUSTOM)).toMatchObject([
      { name: 'live-unavailable', value: { reason: 'Redis is down' } },
    ]);
    expect(contents(events)).toEqual(['Hel', 'lo world']);
    expect(thread.thread).toEqual(['user: write', 'assistant: Hello world']);
  });
});
