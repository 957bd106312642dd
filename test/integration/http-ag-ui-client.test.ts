// AG-UI's own client (`HttpAgent` of `@ag-ui/client`, which verifies every event sequence it receives) against the
// handler's `POST …/agui` over real HTTP, the real Temporal server and a worker with scripted models: an approval
// interrupt resumed through `RunAgentInput.resume`; an MCP elicitation interrupt (our fixture server asks for a name
// and an age) answered wrongly, refused by the run, then answered and resumed; a client that drops mid-run and runs
// again rejoins its turn and ends with every message once; a thread's second message is the conversation's second
// turn, whose prompt holds the first; and an answer streams live, a retried model call's void text dropped, and a
// client that drops mid-message goes on with it.
import { EventType, HttpAgent, type AgentSubscriber, type BaseEvent, type Message } from '@ag-ui/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createAgentHandler } from '../../src/http/index.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { stdioFixture, stopAll } from '../fixtures/mcp/servers.js';
import { toolResultsSeen, withAgentWorker, type HarnessClient } from '../support/agent-harness.js';
import { serveHandler, type TestHttpServer } from '../support/http-chat.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await stopAll();
  await env?.teardown();
});

/** Serves the handler for `agent` and runs `fn` with a factory of AG-UI clients on one thread. */
async function withAgUi<T>(
  agent: Agent,
  fn: (ctx: { client: () => HttpAgent; harness: HarnessClient; server: TestHttpServer }) => Promise<T>,
): Promise<T> {
  return await withAgentWorker(env, [agent], async (harness) => {
    const handler = createAgentHandler({
      client: harness.client,
      agent: agent.name,
      authenticate: (request) => (request.headers.get('authorization') === 'Bearer alice' ? { userId: 'alice' } : null),
      conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
      onError: (error) => console.error(error),
    });
    const server = await serveHandler(handler);
    const threadId = `t${Math.random().toString(36).slice(2, 10)}`;
    const client = () =>
      new HttpAgent({ url: `${server.url}/api/agui`, headers: { authorization: 'Bearer alice' }, threadId });
    try {
      return await fn({ client, harness, server });
    } finally {
      await server.close();
    }
  });
}

/** A subscriber that records the events of a run. */
function recorder(): AgentSubscriber & { events: BaseEvent[] } {
  const events: BaseEvent[] = [];
  return { events, onEvent: ({ event }) => void events.push(event) };
}

/** The thread's messages as role and text, for short assertions (tool calls by name). */
function transcript(messages: Message[]): string[] {
  return messages.map((message) => {
    if (message.role === 'assistant' && message.toolCalls?.length) {
      return `assistant calls ${message.toolCalls.map((call) => call.function.name).join(', ')}`;
    }
    return `${message.role}: ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`;
  });
}

/** The output of tool call `toolCallId` as the scripted model saw it in `request`, as text. */
function toolOutput(request: ScriptedRequest, toolCallId: string): string {
  const output = toolResultsSeen(request).get(toolCallId) as { type: string; value: unknown } | undefined;
  return typeof output?.value === 'string' ? output.value : JSON.stringify(output?.value);
}

describe('AG-UI with @ag-ui/client (HttpAgent)', () => {
  it('an approval interrupt, resumed through RunAgentInput.resume on the same durable run', async () => {
    const deleted: string[] = [];
    const deleteFile = createTool({
      name: 'delete_file',
      description: 'Deletes a file.',
      parameters: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => {
        deleted.push(path);
        return `deleted ${path}`;
      },
    });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        {
          text: 'Deleting a.txt.',
          toolCalls: [{ toolName: 'delete_file', input: { path: 'a.txt' }, toolCallId: 'del' }],
        },
        { text: 'Done: a.txt is gone.' },
      ],
    });
    const agent = new Agent({ name: 'agui-approver', instructions: '', model, tools: [deleteFile] });
    await withAgUi(agent, async ({ client }) => {
      const thread = client();
      thread.addMessage({ id: 'u1', role: 'user', content: 'delete a.txt' });
      const first = recorder();
      await thread.runAgent({}, first);
      expect(thread.pendingInterrupts).toMatchObject([
        { reason: 'tool_approval', toolCallId: 'del', responseSchema: { required: ['approved'] } },
      ]);
      expect(first.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' } });
      expect(deleted).toEqual([]);
      // The client itself refuses a run that leaves the interrupt unanswered.
      await expect(thread.runAgent()).rejects.toThrow(/pending interrupt/);

      const [interrupt] = thread.pendingInterrupts;
      const second = recorder();
      await thread.runAgent(
        { resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }] },
        second,
      );
      expect(second.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(thread.pendingInterrupts).toEqual([]);
      expect(deleted).toEqual(['a.txt']);
      expect(transcript(thread.messages)).toEqual([
        'user: delete a.txt',
        'assistant: Deleting a.txt.',
        'assistant calls delete_file',
        'tool: deleted a.txt',
        'assistant: Done: a.txt is gone.',
      ]);
      // Answering the same interrupt again: the run has ended, the server refuses.
      await expect(
        thread.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }] }),
      ).rejects.toThrow(/HTTP 409/);
      expect(deleted).toEqual(['a.txt']);
    });
  });

  it("an MCP server's question as an interrupt with its schema: a wrong answer is refused by the run, the right one resumes", async () => {
    const mcp = new MCPConfiguration({ servers: { people: stdioFixture() } });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { toolCalls: [{ toolName: 'people_elicit', input: { message: 'Who are you?' }, toolCallId: 'who' }] },
        (request) => ({ text: `The server was told: ${toolOutput(request, 'who')}` }),
      ],
    });
    const agent = new Agent({ name: 'agui-asker', instructions: '', model, mcp });
    try {
      await withAgUi(agent, async ({ client }) => {
        const thread = client();
        thread.addMessage({ id: 'u1', role: 'user', content: 'introduce me' });
        await thread.runAgent();
        expect(thread.pendingInterrupts).toMatchObject([
          {
            reason: 'mcp_elicitation',
            message: 'Who are you?',
            toolCallId: 'who',
            responseSchema: {
              type: 'object',
              properties: { name: { type: 'string' }, age: { type: 'integer', maximum: 150 } },
              required: ['name'],
            },
          },
        ]);
        const [question] = thread.pendingInterrupts;
        // Out of the schema's range: the run validates the answer and refuses it; the question still waits.
        await expect(
          thread.runAgent({
            resume: [{ interruptId: question!.id, status: 'resolved', payload: { name: 'Ada', age: 200 } }],
          }),
        ).rejects.toThrow(/HTTP 422.*Elicitation\.InvalidAnswer/s);
        expect(thread.pendingInterrupts.map((i) => i.id)).toEqual([question!.id]);

        const resumed = recorder();
        await thread.runAgent(
          { resume: [{ interruptId: question!.id, status: 'resolved', payload: { name: 'Ada', age: 36 } }] },
          resumed,
        );
        expect(resumed.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
        // The same MCP call went on with the answer: the server's result is what it was told.
        const told = JSON.parse(toolOutput(model.requests[1]!, 'who')) as unknown;
        expect(told).toMatchObject({ action: 'accept', content: { name: 'Ada', age: 36 } });
        expect(transcript(thread.messages).at(-1)).toBe(`assistant: The server was told: ${JSON.stringify(told)}`);
      });
    } finally {
      await mcp.disconnect();
    }
  });

  it('a client that drops mid-run and runs again rejoins its turn: every message once, the message not sent twice', async () => {
    const wait = createTool({
      name: 'wait',
      description: 'Waits.',
      parameters: z.object({ ms: z.number() }),
      execute: async ({ ms }) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return 'waited';
      },
    });
    /** Each turn: a first part and a wait, then the rest; the second turn tells the first turn's question. */
    const reply = (request: ScriptedRequest) => {
      const sinceUser = request.prompt.length - 1 - request.prompt.findLastIndex((m) => m.role === 'user');
      const turn = request.prompt.filter((m) => m.role === 'user').length;
      if (sinceUser === 0) {
        return { text: `Turn ${turn}, part one.`, toolCalls: [{ toolName: 'wait', input: { ms: 1_500 } }] };
      }
      const first = request.prompt.find((m) => m.role === 'user')!;
      const asked = first.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      return { text: `Turn ${turn}, part two (you first asked: ${asked}).` };
    };
    const model = new ScriptedLanguageModel(Array.from({ length: 4 }, () => reply));
    const agent = new Agent({ name: 'agui-reconnect', instructions: '', model, tools: [wait] });
    await withAgUi(agent, async ({ client, harness }) => {
      const thread = client();
      thread.addMessage({ id: 'u1', role: 'user', content: 'tell me a story' });
      // The connection drops once the first part is in: the client stops reading, the turn goes on.
      const dropping = recorder();
      dropping.onTextMessageEndEvent = () => thread.abortRun();
      await thread.runAgent({}, dropping);
      expect(dropping.events.some((e) => e.type === EventType.RUN_FINISHED)).toBe(false);
      expect(transcript(thread.messages)).toContain('assistant: Turn 1, part one.');

      // Running again with the same thread (its last user message already sent) rejoins the turn where it left.
      const again = recorder();
      await thread.runAgent({}, again);
      expect(again.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(again.events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)).toMatchObject([
        { delta: 'Turn 1, part two (you first asked: tell me a story).' },
      ]);
      expect(transcript(thread.messages)).toEqual([
        'user: tell me a story',
        'assistant: Turn 1, part one.',
        'assistant calls wait',
        'tool: waited',
        'assistant: Turn 1, part two (you first asked: tell me a story).',
      ]);
      expect(model.callCount).toBe(2);

      // The thread's next message is the conversation's second turn. This time the client drops and comes back
      // only after the turn has ended: it still gets the rest, once.
      thread.addMessage({ id: 'u2', role: 'user', content: 'and another' });
      const dropped = recorder();
      dropped.onTextMessageEndEvent = () => thread.abortRun();
      await thread.runAgent({}, dropped);
      await expect.poll(() => model.callCount, { timeout: 20_000 }).toBe(4);
      const turn2 = await turnRun(harness, 2);
      await turn2.result();
      await thread.runAgent();
      const texts = transcript(thread.messages).filter((line) => line.startsWith('assistant: '));
      expect(texts).toEqual([
        'assistant: Turn 1, part one.',
        'assistant: Turn 1, part two (you first asked: tell me a story).',
        'assistant: Turn 2, part one.',
        'assistant: Turn 2, part two (you first asked: tell me a story).',
      ]);
      // Two messages, two turns: no message was sent twice.
      expect(model.callCount).toBe(4);
      expect(model.requests[3]!.prompt.filter((m) => m.role === 'user')).toHaveLength(2);
    });
  });

  it('streams the answer live as the model writes it; a retried model call leaves the answer once', async () => {
    const answer = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + '.';
    // The first attempt fails 2.4 s into the answer; the retry writes all of it over 3 s.
    const model = new ScriptedLanguageModel([
      { text: answer, stream: { chunkChars: 4, chunkDelayMs: 30, failAfterChunks: 80 } },
      { text: answer, stream: { chunkChars: 4, chunkDelayMs: 30 } },
    ]);
    const agent = new Agent({
      name: 'agui-live',
      instructions: '',
      model,
      activity: { generate: { retry: { initialInterval: '200ms' } } },
    });
    await withAgUi(agent, async ({ client }) => {
      const thread = client();
      thread.addMessage({ id: 'u1', role: 'user', content: 'write' });
      const seen: Array<{ event: BaseEvent; at: number }> = [];
      await thread.runAgent({}, { onEvent: ({ event }) => void seen.push({ event, at: Date.now() }) });
      const types = seen.map(({ event }) => event.type);
      expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
      // Live: many pieces, the first well before the run ended.
      const pieces = seen.filter(({ event }) => event.type === EventType.TEXT_MESSAGE_CONTENT);
      expect(pieces.length).toBeGreaterThan(10);
      expect(seen.at(-1)!.at - pieces[0]!.at).toBeGreaterThan(1_500);
      // The first attempt's text was shown, then dropped with a snapshot when the retry started over.
      const reset = types.lastIndexOf(EventType.MESSAGES_SNAPSHOT);
      expect(reset).toBeGreaterThan(types.indexOf(EventType.TEXT_MESSAGE_CONTENT));
      expect(transcript(thread.messages)).toEqual(['user: write', `assistant: ${answer}`]);
      expect(model.callCount).toBe(2);
    });
  });

  it('a client that drops mid-message and runs again goes on with the message it holds: the answer once', async () => {
    const answer = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + '.';
    const model = new ScriptedLanguageModel([{ text: answer, stream: { chunkChars: 4, chunkDelayMs: 30 } }]);
    const agent = new Agent({ name: 'agui-live-rejoin', instructions: '', model });
    await withAgUi(agent, async ({ client }) => {
      const thread = client();
      thread.addMessage({ id: 'u1', role: 'user', content: 'write' });
      // The connection drops after the third piece; the answer goes on being written.
      let pieces = 0;
      await thread.runAgent(
        {},
        {
          onTextMessageContentEvent: () => {
            if (++pieces === 3) thread.abortRun();
          },
        },
      );
      const held = thread.messages.at(-1)!;
      expect(held.role).toBe('assistant');
      expect(answer.startsWith(held.content as string) && (held.content as string).length < answer.length).toBe(true);
      const again = recorder();
      await thread.runAgent({}, again);
      expect(again.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      // The same message goes on: what the client held, then the rest.
      expect(transcript(thread.messages)).toEqual(['user: write', `assistant: ${answer}`]);
      expect(thread.messages.at(-1)!.id).toBe(held.id);
    });
  });
});

/** The run of the chat's turn `turn` on the harness's task queue. */
async function turnRun(harness: HarnessClient, turn: number) {
  const query = `WorkflowType = 'agentRun' AND TaskQueue = '${harness.taskQueue}'`;
  await expect
    .poll(async () => {
      for await (const run of harness.client.list(query)) if (run.workflowId.endsWith(`/turn-${turn}`)) return true;
      return false;
    })
    .toBe(true);
  for await (const run of harness.client.list(query)) {
    if (run.workflowId.endsWith(`/turn-${turn}`)) return harness.client.getRun(run.workflowId);
  }
  throw new Error(`no turn ${turn}`);
}
