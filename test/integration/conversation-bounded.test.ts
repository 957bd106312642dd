// A conversation stays bounded over many turns on the real dev server (scripted models): it continues as new between
// turns once its history passes the budget, carrying transcript, summary and queue; it compacts its transcript with
// a summary written by the agent's summarizer (or keeps the last messages without one), so every model call gets a
// bounded prompt; and its messages read back, paged, after it ended with no worker running.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { Conversation } from '../../src/client/conversation.js';
import type { ConversationState } from '../../src/protocol/conversation.js';
import { nextRunId } from '../../src/client/history/run-chain.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { SUMMARY_TAG } from '../../src/protocol/conversation.js';
import { CURRENT_RUN_PROTOCOL, RUN_PROTOCOL_MEMO_KEY } from '../../src/protocol/run-protocol.js';
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

const TURNS = Number(process.env.CONVERSATION_TURNS ?? 60);
const BUDGET = 150;

function textOf(message: ScriptedRequest['prompt'][number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function echoModel(calls: number): ScriptedLanguageModel {
  return new ScriptedLanguageModel(
    Array.from({ length: calls }, () => (request: ScriptedRequest) => ({ text: `echo: ${request.lastUserText}` })),
  );
}

/** History length of every execution of the conversation, first to last. */
async function executionLengths(id: string): Promise<number[]> {
  const described = await env.client.workflow.getHandle(id).describe();
  const lengths: number[] = [];
  let runId: string | undefined = described.raw.workflowExecutionInfo?.firstRunId ?? described.runId;
  while (runId) {
    const history = await env.client.workflow.getHandle(id, runId).fetchHistory();
    lengths.push(history.events?.length ?? 0);
    runId = await nextRunId(env.client.workflow, id, runId);
  }
  return lengths;
}

describe('a bounded conversation', () => {
  it(
    `keeps ${TURNS} turns bounded: continue-as-new under the budget, summaries in every prompt, history paged with no worker`,
    { timeout: 240_000 },
    async () => {
      const chat = echoModel(TURNS * 2);
      let summaries = 0;
      const summarizer = new ScriptedLanguageModel(
        Array.from({ length: TURNS }, () => (request: ScriptedRequest) => {
          summaries++;
          const earlier = /Earlier summary:\n(summary \d+)/.exec(textOf(request.prompt.at(-1)!))?.[1];
          return { text: `summary ${summaries}${earlier ? ` (after ${earlier})` : ''}` };
        }),
      );
      const agent = new Agent({
        name: 'long-chat',
        instructions: 'Be brief.',
        model: chat,
        summarization: { model: summarizer, triggerMessages: 8, keepMessages: 4 },
      });
      const id = randomWorkflowId('conv-long');
      const options = {
        agent: 'long-chat',
        userId: 'u1',
        limits: { historyEventBudget: BUDGET },
        workflow: { workflowExecutionTimeout: '10 minutes' },
      };
      await withAgentWorker(env, [agent], async (h) => {
        const conversation = h.client.conversation(id, options);
        for (let turn = 1; turn <= TURNS - 5; turn++) {
          expect(await (await conversation.send(`message ${turn}`)).text()).toBe(`echo: message ${turn}`);
        }
        // The last five at once: they wait in the queue, which continue-as-new carries.
        const last = await Promise.all(
          Array.from({ length: 5 }, (_, i) => conversation.send(`message ${TURNS - 4 + i}`)),
        );
        const texts = await Promise.all(last.map((turn) => turn.text()));
        expect(texts.sort()).toEqual(Array.from({ length: 5 }, (_, i) => `echo: message ${TURNS - 4 + i}`).sort());
        const state = await settled(conversation, TURNS);
        expect(state.completedTurns).toBe(TURNS);
        expect(state.generation).toBeGreaterThan(0);
        expect(state.hasSummary).toBe(true);
        await conversation.end();
        await conversation.ended();
      });

      // Every model call got a bounded prompt: system prompt, summary, at most the trigger's messages, the new one.
      expect(chat.requests).toHaveLength(TURNS);
      for (const request of chat.requests) expect(request.prompt.length).toBeLessThanOrEqual(1 + 1 + 8 + 1);
      // Once compacted, the summary is in the prompt, and each summary folds in the previous one.
      const summarized = chat.requests.filter((r) => r.prompt.some((m) => textOf(m).startsWith(`<${SUMMARY_TAG}>`)));
      expect(summarized.length).toBeGreaterThan(TURNS / 2);
      expect(summaries).toBeGreaterThan(TURNS / 5);
      const lastPrompt = chat.requests.at(-1)!.prompt.map(textOf).join('\n');
      expect(lastPrompt).toMatch(/summary \d+ \(after summary \d+\)/);

      // Each execution's history stayed under the budget (plus one turn's events: it continues between turns).
      const described = await env.client.workflow.getHandle(id).describe();
      // The first execution decided the protocol and recorded it; the later ones carried it and recorded it again.
      const firstRun = await env.client.workflow
        .getHandle(id, described.raw.workflowExecutionInfo?.firstRunId ?? undefined)
        .describe();
      expect(firstRun.runId).not.toBe(described.runId);
      for (const execution of [firstRun, described]) {
        expect(execution.memo?.[RUN_PROTOCOL_MEMO_KEY]).toBe(CURRENT_RUN_PROTOCOL);
      }
      await recordHistory(
        'conversation-continue-as-new',
        env,
        id,
        described.raw.workflowExecutionInfo?.firstRunId ?? undefined,
      );
      await recordHistory('conversation-continued-summarized', env, id);
      const lengths = await executionLengths(id);
      expect(lengths.length).toBeGreaterThan(1);
      for (const length of lengths) expect(length).toBeLessThan(BUDGET + 60);

      // Read back with no worker: every message of every turn, oldest first, in pages.
      const client = new AgentClient({ client: env.client });
      const reader = client.conversation(id, options);
      const messages = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await reader.history({ limit: 7, ...(cursor !== undefined ? { cursor } : {}) });
        expect(page.messages.length).toBeLessThanOrEqual(7);
        messages.push(...page.messages);
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 1_000);
      expect(messages).toHaveLength(TURNS * 2);
      const users = messages.filter((m) => m.role === 'user').map((m) => textOf(m as never));
      expect(new Set(users).size).toBe(TURNS);
      expect(users.slice(0, TURNS - 5)).toEqual(Array.from({ length: TURNS - 5 }, (_, i) => `message ${i + 1}`));
      expect(messages.map((m) => m.turn)).toEqual(messages.map((m) => m.turn).sort((a, b) => a - b));
    },
  );

  it('keeps the last messages when the agent has no summarizer', { timeout: 240_000 }, async () => {
    const chat = echoModel(40);
    const agent = new Agent({ name: 'short-chat', instructions: '', model: chat });
    await withAgentWorker(env, [agent], async (h) => {
      const conversation = h.client.conversation(randomWorkflowId('conv-keep'), {
        agent: 'short-chat',
        compaction: { triggerMessages: 6, keepMessages: 2 },
        workflow: { workflowExecutionTimeout: '2 minutes' },
      });
      for (let turn = 1; turn <= 12; turn++) await (await conversation.send(`m${turn}`)).result();
      const state = await settled(conversation, 12);
      expect(state).toMatchObject({ hasSummary: false, completedTurns: 12 });
      expect(state.compactions).toBeGreaterThan(0);
      expect(state.transcriptMessages).toBeLessThanOrEqual(8);
      await conversation.end();
    });
    for (const request of chat.requests) {
      expect(request.prompt.length).toBeLessThanOrEqual(7);
      expect(request.prompt.some((m) => m.role === 'system')).toBe(false);
    }
    // The last call saw the newest turns, not the first ones.
    const last = chat.requests.at(-1)!.prompt.map(textOf);
    expect(last).toContain('m11');
    expect(last).not.toContain('m1');
  });
});
