// The conversation's rules without a server: admission, the queue (order, interrupt, bounds), stop and end, turns,
// compaction and what continue-as-new carries. The workflow (workflows/conversation.ts) only delegates to this state.
import { describe, expect, it } from 'vitest';
import {
  CONVERSATION_LIMITS,
  summaryMessage,
  type ConversationInput,
  type ConversationMessage,
} from '../../src/protocol/conversation.js';
import { RefusalCode, jsonBytes, type TranscriptMessage } from '../../src/protocol/index.js';
import { CURRENT_RUN_PROTOCOL } from '../../src/protocol/run-protocol.js';
import { ConversationEntityState, resolveCompaction } from '../../workflows/conversation-state.js';

const noSummarizer = { summarize: false };
const base: ConversationInput = { conversationId: 'c1', agentName: 'helper', userId: 'ada' };

/** A conversation whose compaction settings are resolved (as the workflow does before its first turn). */
function conversationOf(input: Partial<ConversationInput> = {}): ConversationEntityState {
  const conversation = new ConversationEntityState({ ...base, ...input }, CURRENT_RUN_PROTOCOL);
  conversation.resolveCompaction(noSummarizer);
  return conversation;
}

function send(content: string, extra: Partial<ConversationMessage> = {}): ConversationMessage {
  return { content, ...extra };
}

const user = (content: string): TranscriptMessage => ({ role: 'user', content });
const assistant = (content: string): TranscriptMessage => ({ role: 'assistant', content });

/** Queued turns as [turn, text] pairs, in the order they will run. */
function queueOf(conversation: ConversationEntityState): [number, unknown][] {
  return conversation.queue.map((queued) => [queued.turn, queued.message.content]);
}

/** Starts the next turn with a cancel that counts its calls; answers the start and the count. */
function start(conversation: ConversationEntityState) {
  const cancels = { count: 0 };
  const started = conversation.startTurn(() => cancels.count++);
  return { started: started!, cancels };
}

/** Runs the next queued turn to its end with an answer, as the workflow records it. */
function completeTurn(conversation: ConversationEntityState, answer: string): void {
  const { started } = start(conversation);
  conversation.turnEnded();
  conversation.recordTurn([started.queued.message, assistant(answer)]);
}

describe('the queue', () => {
  it('numbers messages in order and says how many turns are ahead of each', () => {
    const conversation = conversationOf();
    expect(conversation.accept(send('first'))).toEqual({ turn: 1, workflowId: 'c1/turn-1', position: 0 });
    expect(conversation.accept(send('second'))).toEqual({ turn: 2, workflowId: 'c1/turn-2', position: 1 });
    const { started } = start(conversation);
    expect(started.queued.turn).toBe(1);
    // Sent while turn 1 runs: the running turn counts as ahead.
    expect(conversation.accept(send('third'))).toEqual({ turn: 3, workflowId: 'c1/turn-3', position: 2 });
    expect(queueOf(conversation)).toEqual([
      [2, 'second'],
      [3, 'third'],
    ]);
    expect(conversation.snapshot()).toMatchObject({
      status: 'running',
      currentTurn: { turn: 1, workflowId: 'c1/turn-1' },
      queued: [
        { turn: 2, workflowId: 'c1/turn-2' },
        { turn: 3, workflowId: 'c1/turn-3' },
      ],
      turns: 3,
      completedTurns: 0,
    });
  });

  it('puts an interrupting message first and cancels the running turn once', () => {
    const conversation = conversationOf();
    conversation.accept(send('first'));
    conversation.accept(send('second'));
    const { cancels } = start(conversation);
    expect(conversation.accept(send('now!', { interrupt: true }))).toEqual({
      turn: 3,
      workflowId: 'c1/turn-3',
      position: 0,
    });
    expect(cancels.count).toBe(1);
    expect(queueOf(conversation)).toEqual([
      [3, 'now!'],
      [2, 'second'],
    ]);
    // The turn's run is still ending (the workflow waits for its cancellation): it is still the current turn.
    expect(conversation.current?.turn).toBe(1);
    conversation.turnEnded();
    expect(conversation.startTurn(() => undefined)?.queued.turn).toBe(3);
  });

  it('queues an interrupt first when idle, cancelling nothing', () => {
    const conversation = conversationOf();
    conversation.accept(send('a'));
    expect(conversation.accept(send('b', { interrupt: true })).position).toBe(0);
    expect(queueOf(conversation)).toEqual([
      [2, 'b'],
      [1, 'a'],
    ]);
    expect(conversation.current).toBeUndefined();
  });

  it('refuses a message past the queue bound; the running turn does not count', () => {
    const conversation = conversationOf({ limits: { maxQueued: 2 } });
    conversation.accept(send('1'));
    start(conversation);
    conversation.accept(send('2'));
    expect(conversation.admission(send('3'))).toBeUndefined();
    conversation.accept(send('3'));
    const full = conversation.admission(send('4'));
    expect(full?.code).toBe(RefusalCode.ConversationQueueFull);
    expect(full?.message).toContain('2 messages');
    // An interrupt obeys the same bound (it is queued too).
    expect(conversation.admission(send('4', { interrupt: true }))?.code).toBe(RefusalCode.ConversationQueueFull);
    expect(conversation.queue).toHaveLength(2);
    // A turn taken from the queue makes room.
    conversation.turnEnded();
    conversation.startTurn(() => undefined);
    expect(conversation.admission(send('4'))).toBeUndefined();
  });

  it('bounds the waiting messages in bytes, and one message in bytes', () => {
    const conversation = conversationOf({ limits: { maxQueuedBytes: 200, maxMessageBytes: 150 } });
    const big = 'x'.repeat(120);
    expect(conversation.admission(send('y'.repeat(140)))?.code).toBe(RefusalCode.ConversationMessageTooLarge);
    conversation.accept(send(big));
    const queued = jsonBytes(conversation.queue);
    expect(queued).toBeGreaterThan(120);
    // The next one fits the message bound but not the queue's bytes.
    const refused = conversation.admission(send(big));
    expect(refused?.code).toBe(RefusalCode.ConversationQueueFull);
    expect(refused?.message).toContain(`(${queued} bytes)`);
    expect(conversation.admission(send('short'))).toBeUndefined();
  });

  it('refuses malformed messages before they are queued', () => {
    const conversation = conversationOf();
    const malformed: unknown[] = [
      null,
      'text',
      {},
      { content: 42 },
      { content: [] },
      { content: Array.from({ length: 65 }, () => ({ type: 'text', text: 'x' })) },
      { content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'rm', input: {} }] },
      { content: [{ type: 'file', data: 'AAAA' }] },
      { content: [{ type: 'image', image: { url: 'x' } }] },
      { content: 'hi', interrupt: 'yes' },
      { content: 'hi', userId: 7 },
      { content: 'hi', watched: 1 },
    ];
    for (const message of malformed) {
      expect(conversation.admission(message as ConversationMessage)?.code, JSON.stringify(message)).toBe(
        RefusalCode.InputMalformed,
      );
    }
    const parts: ConversationMessage = {
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', image: 'https://example.com/a.png', mediaType: 'image/png' },
        { type: 'file', data: 'AAAA', mediaType: 'application/pdf' },
      ],
    };
    expect(conversation.admission(parts)).toBeUndefined();
    expect(conversation.admission({ content: Array.from({ length: 64 }, () => ({ type: 'text', text: 'x' })) })).toBe(
      undefined,
    );
  });

  it('asks for authorization only for a sender other than the user, and keeps who sent it', () => {
    const conversation = conversationOf();
    const run = { workflowId: 'c1', runId: 'r1' };
    expect(conversation.authorization(send('hi'), run)).toBeUndefined();
    expect(conversation.authorization(send('hi', { userId: 'ada' }), run)).toBeUndefined();
    conversation.accept(send('hi'));
    expect(conversation.authorization(send('hi', { userId: 'bob', identity: { team: 'ops' } }), run)).toEqual({
      agentName: 'helper',
      conversationId: 'c1',
      userId: 'ada',
      sender: 'bob',
      identity: { team: 'ops' },
      turn: 2,
      workflowId: 'c1',
      runId: 'r1',
    });
    conversation.accept(send('from bob', { userId: 'bob', watched: true }));
    conversation.accept(send('from ada', { userId: 'ada', watched: false }));
    expect(conversation.queue).toEqual([
      { turn: 1, message: user('hi') },
      { turn: 2, message: user('from bob'), sender: 'bob', watched: true },
      { turn: 3, message: user('from ada') },
    ]);
    // A conversation without a user has nobody to tell apart: no authorization.
    const open = conversationOf({ userId: undefined });
    expect(open.authorization(send('hi', { userId: 'bob' }), run)).toBeUndefined();
  });
});

describe('stop and end', () => {
  it('stop cancels the running turn and answers its number; the queue stays', () => {
    const conversation = conversationOf();
    expect(conversation.stop()).toBeUndefined();
    conversation.accept(send('a'));
    conversation.accept(send('b'));
    const { cancels } = start(conversation);
    expect(conversation.stop()).toBe(1);
    expect(cancels.count).toBe(1);
    expect(queueOf(conversation)).toEqual([[2, 'b']]);
    conversation.turnEnded();
    // The turn has ended: a late stop finds nothing to cancel.
    expect(conversation.stop()).toBeUndefined();
    expect(cancels.count).toBe(1);
  });

  it('end refuses new messages, keeps the queued ones and says so in its state', () => {
    const conversation = conversationOf();
    conversation.accept(send('a'));
    conversation.accept(send('b'));
    start(conversation);
    conversation.end();
    conversation.end();
    const refused = conversation.admission(send('c'));
    expect(refused?.code).toBe(RefusalCode.ConversationEnded);
    expect(refused?.message).toContain("Conversation 'c1' has ended");
    expect(conversation.snapshot().status).toBe('running');
    conversation.turnEnded();
    expect(conversation.snapshot()).toMatchObject({ status: 'ending', queued: [{ turn: 2 }], turns: 2 });
    expect(queueOf(conversation)).toEqual([[2, 'b']]);
  });
});

describe('turns', () => {
  it("gives a turn's run the summary, the transcript and the message, with its context", () => {
    const conversation = conversationOf({
      context: { tenant: 't1' },
      turn: { maxSteps: 3 },
      continuation: {
        transcript: [user('before'), assistant('ok')],
        summary: 'they met',
        // Turn 5 is numbered (queued) but not completed.
        turns: 5,
        queue: [{ turn: 5, message: user('next'), sender: 'bob', watched: true }],
        completedTurns: 4,
        compactions: 1,
        ending: false,
        compaction: resolveCompaction(undefined, noSummarizer),
        generation: 2,
      },
    });
    const { started } = start(conversation);
    expect(started.workflowId).toBe('c1/turn-5');
    expect(started.input).toEqual({
      maxSteps: 3,
      agentName: 'helper',
      input: [summaryMessage('they met'), user('before'), assistant('ok'), user('next')],
      conversationId: 'c1',
      userId: 'ada',
      context: { tenant: 't1', conversationId: 'c1', userId: 'ada', turn: 5, sender: 'bob' },
      streaming: { watched: true },
    });
    expect(conversation.recordRequest(started, 'completed', { messageCount: 7 } as never)).toEqual({
      conversationId: 'c1',
      turn: 5,
      workflowId: 'c1/turn-5',
      outcome: 'completed',
      message: user('next'),
      inputCount: 4,
      messageCount: 7,
    });
    expect(conversation.recordRequest(started, 'cancelled', undefined)).not.toHaveProperty('messageCount');
    conversation.turnEnded();
    conversation.recordTurn([user('next'), assistant('done')]);
    expect(conversation.transcript).toEqual([user('before'), assistant('ok'), user('next'), assistant('done')]);
    expect(conversation.snapshot()).toMatchObject({ status: 'idle', completedTurns: 5, transcriptMessages: 4 });
    expect(conversation.startTurn(() => undefined)).toBeUndefined();
    expect(conversation.output()).toEqual({ turns: 5, completedTurns: 5 });
  });

  it('starts an unwatched turn without streaming options and no sender in its context', () => {
    const conversation = conversationOf({ userId: undefined });
    conversation.accept(send('hello'));
    const { started } = start(conversation);
    expect(started.input).toEqual({
      agentName: 'helper',
      input: [user('hello')],
      conversationId: 'c1',
      context: { conversationId: 'c1', turn: 1 },
    });
  });
});

describe('compaction', () => {
  it("resolves the conversation's settings over the agent's over the defaults, once", () => {
    expect(resolveCompaction({ keepMessages: 4 }, { triggerMessages: 12, keepMessages: 8, summarize: true })).toEqual({
      triggerMessages: 12,
      triggerBytes: 200 * 1024,
      keepMessages: 4,
      summarize: true,
    });
    // Nonsense falls back to the defaults; at least one message is kept.
    expect(
      resolveCompaction({ triggerMessages: -1, triggerBytes: Number.NaN, keepMessages: 0 }, { summarize: false }),
    ).toEqual({ triggerMessages: 40, triggerBytes: 200 * 1024, keepMessages: 1, summarize: false });
    expect(resolveCompaction({ triggerMessages: 7.9 }, { summarize: false }).triggerMessages).toBe(7);
    const conversation = new ConversationEntityState(
      { ...base, compaction: { triggerMessages: 3 } },
      CURRENT_RUN_PROTOCOL,
    );
    expect(() => conversation.compactionPlan()).toThrow(/resolved before its first turn/);
    expect(conversation.resolveCompaction({ summarize: true }).triggerMessages).toBe(3);
    // Asked again (a replayed description, a carried setting): the first answer stays.
    expect(conversation.resolveCompaction({ triggerMessages: 99, summarize: false })).toMatchObject({
      triggerMessages: 3,
      summarize: true,
    });
  });

  it('cuts at a turn start past the message trigger, keeping the newest messages', () => {
    const conversation = conversationOf({ compaction: { triggerMessages: 4, keepMessages: 2 } });
    for (const text of ['one', 'two']) {
      conversation.accept(send(text));
      completeTurn(conversation, `re ${text}`);
    }
    // 4 messages: not past the trigger.
    expect(conversation.compactionPlan()).toBeUndefined();
    conversation.accept(send('three'));
    completeTurn(conversation, 're three');
    const plan = conversation.compactionPlan();
    expect(plan).toEqual({ cut: 4, older: [user('one'), assistant('re one'), user('two'), assistant('re two')] });
    conversation.compacted(plan!, 'one and two');
    expect(conversation.transcript).toEqual([user('three'), assistant('re three')]);
    expect(conversation.summary).toBe('one and two');
    expect(conversation.snapshot()).toMatchObject({ hasSummary: true, compactions: 1, transcriptMessages: 2 });
  });

  it('never splits a turn: a cut moves back to the user message that starts it', () => {
    const conversation = conversationOf({ compaction: { triggerMessages: 3, keepMessages: 2 } });
    conversation.recordTurn([user('a'), assistant('1')]);
    conversation.recordTurn([
      user('b'),
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't', toolName: 'x', input: {} }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 't', toolName: 'x', output: { type: 'text', value: 'r' } }],
      },
      assistant('2'),
    ]);
    // Keeping the newest two would start at the tool result: the cut moves back to 'b'.
    expect(conversation.compactionPlan()?.cut).toBe(2);
  });

  it('does nothing when one long turn is all there is, and drops without a summary when none is given', () => {
    const conversation = conversationOf({ compaction: { triggerMessages: 2, keepMessages: 1 } });
    conversation.recordTurn([user('a'), assistant('1'), assistant('2'), assistant('3')]);
    expect(conversation.compactionPlan()).toBeUndefined();
    conversation.recordTurn([user('b'), assistant('4')]);
    conversation.summary = 'earlier';
    const plan = conversation.compactionPlan()!;
    expect(plan.cut).toBe(4);
    // The summarizer is absent or failed: older messages are dropped, the previous summary stays.
    conversation.compacted(plan, undefined);
    expect(conversation.transcript).toEqual([user('b'), assistant('4')]);
    expect(conversation.summary).toBe('earlier');
    expect(conversation.compactions).toBe(1);
  });

  it('compacts past the byte trigger, and past 1 MiB whatever the trigger says', () => {
    const bytes = conversationOf({ compaction: { triggerBytes: 1_000, keepMessages: 1 } });
    bytes.recordTurn([user('x'.repeat(600)), assistant('ok')]);
    expect(bytes.compactionPlan()).toBeUndefined();
    bytes.recordTurn([user('y'.repeat(600)), assistant('ok')]);
    expect(bytes.compactionPlan()?.cut).toBe(2);

    const capped = conversationOf({ compaction: { triggerBytes: 10 * 1024 * 1024, keepMessages: 1 } });
    capped.recordTurn([user('x'.repeat(CONVERSATION_LIMITS.maxTranscriptBytes / 2)), assistant('ok')]);
    expect(capped.compactionPlan()).toBeUndefined();
    capped.recordTurn([user('y'.repeat(CONVERSATION_LIMITS.maxTranscriptBytes / 2)), assistant('ok')]);
    expect(capped.compactionPlan()?.cut).toBe(2);
  });
});

describe('continue-as-new', () => {
  const quiet = { continueAsNewSuggested: false, historyLength: 10 };

  it('is due past the history budget or when Temporal suggests it', () => {
    const conversation = conversationOf({ limits: { historyEventBudget: 100 } });
    expect(conversation.continueAsNewDue(quiet)).toBe(false);
    expect(conversation.continueAsNewDue({ continueAsNewSuggested: false, historyLength: 100 })).toBe(true);
    expect(conversation.continueAsNewDue({ continueAsNewSuggested: true, historyLength: 10 })).toBe(true);
  });

  it('a state too large to carry is tried again only after the next turn, and said once', () => {
    const conversation = conversationOf({ limits: { historyEventBudget: 100 } });
    const long = { continueAsNewSuggested: false, historyLength: 500 };
    expect(conversation.continuationTooLarge()).toBe(true);
    expect(conversation.continueAsNewDue(long)).toBe(false);
    conversation.accept(send('a'));
    completeTurn(conversation, 'b');
    expect(conversation.continueAsNewDue(long)).toBe(true);
    expect(conversation.continuationTooLarge()).toBe(false);
    expect(conversation.continueAsNewDue(long)).toBe(false);
  });

  it('carries transcript, summary, numbering, queue, counts, ending and settings into the next execution', () => {
    const conversation = conversationOf({ compaction: { triggerMessages: 2, keepMessages: 1 } });
    conversation.accept(send('one'));
    completeTurn(conversation, 'first');
    conversation.accept(send('two'));
    completeTurn(conversation, 'second');
    conversation.compacted(conversation.compactionPlan()!, 'one happened');
    conversation.accept(send('three'));
    conversation.accept(send('four', { userId: 'bob', watched: true }));
    const carried = conversation.continuation();
    expect(carried).toEqual({
      transcript: [user('two'), assistant('second')],
      summary: 'one happened',
      turns: 4,
      queue: [
        { turn: 3, message: user('three') },
        { turn: 4, message: user('four'), sender: 'bob', watched: true },
      ],
      completedTurns: 2,
      compactions: 1,
      ending: false,
      compaction: { triggerMessages: 2, triggerBytes: 200 * 1024, keepMessages: 1, summarize: false },
      generation: 1,
      protocol: CURRENT_RUN_PROTOCOL,
    });
    // The carried queue is a copy: a send accepted after it was taken is not in it.
    conversation.accept(send('five'));
    expect(carried.queue).toHaveLength(2);

    const next = new ConversationEntityState(
      { ...base, continuation: JSON.parse(JSON.stringify(carried)) },
      carried.protocol!,
    );
    expect(next.compaction).toEqual(carried.compaction);
    expect(next.snapshot()).toEqual({
      conversationId: 'c1',
      agentName: 'helper',
      userId: 'ada',
      status: 'idle',
      queued: [
        { turn: 3, workflowId: 'c1/turn-3' },
        { turn: 4, workflowId: 'c1/turn-4' },
      ],
      turns: 4,
      completedTurns: 2,
      transcriptMessages: 2,
      transcriptBytes: jsonBytes([user('two'), assistant('second')]),
      hasSummary: true,
      compactions: 1,
      generation: 1,
    });
    // Numbering goes on, and the next turn's run sees the carried summary and transcript.
    expect(next.accept(send('five')).turn).toBe(5);
    expect(next.startTurn(() => undefined)?.input.input).toEqual([
      summaryMessage('one happened'),
      user('two'),
      assistant('second'),
      user('three'),
    ]);
    expect(next.continuation().generation).toBe(2);
  });

  it('carries the protocol its first execution decided', () => {
    const older = new ConversationEntityState(base, 2);
    older.resolveCompaction(noSummarizer);
    expect(older.continuation().protocol).toBe(2);
    expect(
      new ConversationEntityState({ ...base, continuation: older.continuation() }, 2).continuation(),
    ).toMatchObject({ protocol: 2, generation: 2 });
  });

  it('an ending conversation stays ending in its next execution', () => {
    const conversation = conversationOf();
    conversation.accept(send('last'));
    conversation.end();
    const next = new ConversationEntityState({ ...base, continuation: conversation.continuation() }, 4);
    expect(next.admission(send('more'))?.code).toBe(RefusalCode.ConversationEnded);
    expect(next.snapshot()).toMatchObject({ status: 'ending', queued: [{ turn: 1 }] });
  });

  it('cannot carry a conversation whose settings were never resolved', () => {
    const conversation = new ConversationEntityState(base, CURRENT_RUN_PROTOCOL);
    expect(() => conversation.continuation()).toThrow(/resolved before its first turn/);
  });
});
