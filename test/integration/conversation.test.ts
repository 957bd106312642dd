// Durable conversations on the real dev server with scripted models: one workflow per conversation id created by the
// first send (update-with-start), turns as child agent runs that see the transcript, a queue with interrupt and stop,
// refusals with codes, approvals inside a turn, and paged history read with no worker.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { Conversation } from '../../src/client/conversation.js';
import type { ConversationState } from '../../src/protocol/conversation.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { RefusalCode } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { recordHistory, withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, randomWorkflowId } from '../support/temporal.js';

/** The conversation's state once it has recorded `turns` turns (a turn's result comes before the conversation records it). */
async function settled(conversation: Conversation, turns: number): Promise<ConversationState> {
  for (let i = 0; ; i++) {
    const state = await conversation.state();
    if ((state.completedTurns >= turns && state.status !== 'running') || i >= 100) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
}

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Text of a prompt message (text parts joined). */
function textOf(message: ScriptedRequest['prompt'][number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** A scripted model that answers every user message with an echo (and calls `tool` when the message asks for it). */
function echoModel(calls = 2_000): ScriptedLanguageModel {
  return new ScriptedLanguageModel(
    Array.from({ length: calls }, () => (request: ScriptedRequest) => {
      const last = request.prompt.at(-1);
      if (last?.role === 'tool') return { text: `tool said ${JSON.stringify(last.content[0])}` };
      const asked = request.lastUserText;
      const tool = /^use (\w+)/.exec(asked)?.[1];
      if (tool) return { toolCalls: [{ toolName: tool, input: {} }] };
      return { text: `echo: ${asked}` };
    }),
  );
}

async function rejection(promise: Promise<unknown>): Promise<RunRequestRejectedError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(RunRequestRejectedError.isInstance(error), String(error)).toBe(true);
  return error as RunRequestRejectedError;
}

const seen: unknown[] = [];
const whoAmI = createTool({
  name: 'whoami',
  description: 'Says who asks, in which conversation and turn.',
  parameters: z.object({}),
  execute: async (_args, options) => {
    const context = {
      userId: options.userId,
      conversationId: options.conversationId,
      turn: options.context.get('turn'),
    };
    seen.push(context);
    return context;
  },
});
let surveyAborted = 0;
const survey = createTool({
  name: 'survey',
  description: 'Runs until cancelled.',
  parameters: z.object({}),
  activity: { heartbeatTimeout: '5s' },
  execute: async (_args, options) => {
    await new Promise<void>((resolve) => options?.abortSignal?.addEventListener('abort', () => resolve()));
    surveyAborted++;
    return 'interrupted';
  },
});
const book = createTool({
  name: 'book',
  description: 'Books a table. Needs approval.',
  parameters: z.object({}),
  needsApproval: true,
  execute: async () => 'booked',
});

describe('durable conversations', () => {
  it(
    'creates one conversation from two first messages sent at once: two turns in order, each seeing the transcript',
    { timeout: 150_000 },
    async () => {
      const model = echoModel();
      const agent = new Agent({ name: 'chat', instructions: 'Be brief.', model, tools: [whoAmI] });
      await withAgentWorker(env, [agent], async (h) => {
        const id = randomWorkflowId('conv');
        const options = { agent: 'chat', userId: 'u1', workflow: { workflowExecutionTimeout: '2 minutes' } };
        // Two handles, as two processes would have: both sends create-or-join the same workflow.
        const [a, b] = await Promise.all([
          h.client.conversation(id, options).send('first'),
          new AgentClient({ client: env.client, taskQueue: h.taskQueue }).conversation(id, options).send('second'),
        ]);
        expect([a.turn, b.turn].sort()).toEqual([1, 2]);
        const [one, two] = a.turn === 1 ? [a, b] : [b, a];
        const firstText = await one.text();
        const secondText = await two.text();
        expect([firstText, secondText].sort()).toEqual(['echo: first', 'echo: second']);
        // The second turn's model call saw the first turn, then its own message.
        const second = model.requests.find((r) => r.lastUserText === (two === b ? 'second' : 'first'))!;
        const prompt = second.prompt.map((m) => `${m.role}:${textOf(m)}`);
        expect(prompt).toEqual([
          'system:Be brief.',
          `user:${one === a ? 'first' : 'second'}`,
          `assistant:${firstText}`,
          `user:${two === b ? 'second' : 'first'}`,
        ]);
        // Tools see the conversation, its user and the turn number.
        const conversation = h.client.conversation(id, options);
        const third = await conversation.send('use whoami');
        expect(third.turn).toBe(3);
        await third.result();
        expect(seen.at(-1)).toEqual({ userId: 'u1', conversationId: id, turn: 3 });
        const state = await settled(conversation, 3);
        expect(state).toMatchObject({ status: 'idle', turns: 3, completedTurns: 3, transcriptMessages: 8 });
        const page = await conversation.history({ limit: 100 });
        expect(page.messages.map((m) => [m.turn, m.role])).toEqual([
          [1, 'user'],
          [1, 'assistant'],
          [2, 'user'],
          [2, 'assistant'],
          [3, 'user'],
          [3, 'assistant'],
          [3, 'tool'],
          [3, 'assistant'],
        ]);
        await conversation.end();
        await conversation.ended();
        await recordHistory('conversation-turns', env, id);
        const refused = await rejection(conversation.send('after the end'));
        expect(refused.code).toBe(RefusalCode.ConversationEnded);
      });
    },
  );

  it(
    'queues follow-ups in order, interrupts the running turn, stops it, and refuses past the limits',
    { timeout: 150_000 },
    async () => {
      surveyAborted = 0;
      const model = echoModel();
      const agent = new Agent({ name: 'surveyor', instructions: '', model, tools: [survey] });
      await withAgentWorker(env, [agent], async (h) => {
        const id = randomWorkflowId('conv');
        const conversation = h.client.conversation(id, {
          agent: 'surveyor',
          userId: 'u1',
          limits: { maxQueued: 2, maxMessageBytes: 100 },
          workflow: { workflowExecutionTimeout: '2 minutes' },
        });
        const running = await conversation.send('use survey');
        await running.started();
        // Wait for the tool to run.
        for (let i = 0; i < 100 && (await running.state()).runningTools.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const queued = await conversation.send('after the survey');
        expect(queued.position).toBe(1);
        const later = await conversation.send('last');
        expect(later.position).toBe(2);
        expect((await rejection(conversation.send('one too many'))).code).toBe(RefusalCode.ConversationQueueFull);
        // 40 characters, 120 UTF-8 bytes: over the 100-byte limit.
        expect((await rejection(conversation.send('€'.repeat(40), { interrupt: true }))).code).toBe(
          RefusalCode.ConversationMessageTooLarge,
        );
        // Hostile content is refused before it is queued: parts a model rejects, too many parts, a non-message.
        const hostile: unknown[] = [
          [{ type: 'tool-call', toolCallId: 'x', toolName: 'survey', input: {} }],
          Array.from({ length: 65 }, () => ({ type: 'text', text: 'a' })),
          [{ type: 'text', text: 42 }],
          [],
        ];
        for (const content of hostile) {
          expect((await rejection(conversation.send(content as never))).code).toBe(RefusalCode.InputMalformed);
        }
        const state = await conversation.state();
        expect(state.currentTurn?.turn).toBe(1);
        expect(state.queued.map((q) => q.turn)).toEqual([2, 3]);
        // Stop cancels the running turn only: its tool sees the abort, and the queue goes on in order.
        expect(await conversation.stop()).toBe(1);
        await expect(running.result()).rejects.toThrow();
        expect(surveyAborted).toBe(1);
        expect(await queued.text()).toBe('echo: after the survey');
        expect(await later.text()).toBe('echo: last');
        // An interrupt cancels the running turn and is answered next, before what was queued.
        const second = await conversation.send('use survey');
        await second.started();
        for (let i = 0; i < 100 && (await second.state()).runningTools.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const waiting = await conversation.send('waiting');
        const urgent = await conversation.send('urgent', { interrupt: true });
        expect(urgent.position).toBe(0);
        expect(await urgent.text()).toBe('echo: urgent');
        await expect(second.result()).rejects.toThrow();
        expect(surveyAborted).toBe(2);
        expect(await waiting.text()).toBe('echo: waiting');
        await settled(conversation, 6);
        const history = await conversation.history();
        expect(history.messages.filter((m) => m.role === 'user').map((m) => [m.turn, textOf(m as never)])).toEqual([
          [1, 'use survey'],
          [2, 'after the survey'],
          [3, 'last'],
          [4, 'use survey'],
          [6, 'urgent'],
          [5, 'waiting'],
        ]);
        // The urgent turn's model saw the interrupted turn's message but no half-finished step.
        const urgentCall = model.requests.find((r) => r.lastUserText === 'urgent')!;
        expect(urgentCall.prompt.some((m) => m.role === 'tool')).toBe(false);
        await conversation.end();
      });
    },
  );

  it(
    'refuses a message from another user unless the agent authorizes it, and runs approvals inside a turn',
    { timeout: 150_000 },
    async () => {
      const model = echoModel();
      const agent = new Agent({
        name: 'guarded',
        instructions: '',
        model,
        tools: [book],
        approval: { authorizeDecision: (decision) => decision.approver === 'u-admin' || decision.approver === 'u1' },
      });
      const open = new Agent({ name: 'open', instructions: '', model: echoModel() });
      await withAgentWorker(env, [agent, open], async (h) => {
        const id = randomWorkflowId('conv');
        const options = { agent: 'guarded', userId: 'u1', workflow: { workflowExecutionTimeout: '2 minutes' } };
        const conversation = h.client.conversation(id, options);
        const turn = await conversation.send('use book');
        await turn.started();
        let pending = (await turn.state()).pendingApprovals;
        for (let i = 0; i < 100 && pending.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
          pending = (await turn.state()).pendingApprovals;
        }
        await turn.approve(pending[0]!.toolCallId, { approver: 'u1' });
        expect(await turn.text()).toContain('booked');
        const stranger = h.client.conversation(id, { ...options, userId: 'u-stranger' });
        expect((await rejection(stranger.send('hi'))).code).toBe(RefusalCode.ConversationNotAuthorized);
        const admin = await h.client.conversation(id, { ...options, userId: 'u-admin' }).send('hello from admin');
        expect(await admin.text()).toBe('echo: hello from admin');
        // An agent without the hook lets only the conversation's user in.
        const other = randomWorkflowId('conv');
        await (await h.client.conversation(other, { ...options, agent: 'open' }).send('mine')).result();
        const intruder = h.client.conversation(other, { ...options, agent: 'open', userId: 'u-admin' });
        expect((await rejection(intruder.send('theirs'))).code).toBe(RefusalCode.ConversationNotAuthorized);
        await conversation.end();
        await h.client.conversation(other, options).end();
      });
    },
  );
});
