// `durable-agent/http` over real HTTP against the real Temporal server and a worker with scripted models: the
// UI message stream `useChat` reads (every chunk validated by `ai`'s own schema, messages built by its own
// `readUIMessageStream`), chats as durable conversations (a later turn's prompt holds the earlier ones, a follow-up
// waits behind the running turn), approvals bound on the server, resume, stop, keep-alives, and hostile requests.
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { UIMessage, UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createAgentHandler, type AgentHandlerOptions } from '../../src/http/index.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { stdioAsking, stopAll } from '../fixtures/mcp/servers.js';
import { createTestEnv } from '../support/temporal.js';
import { withAgentWorker, type HarnessClient } from '../support/agent-harness.js';
import {
  answered,
  chunkReader,
  chunksOf,
  messageOf,
  serveHandler,
  textOf,
  userMessage,
  type TestHttpServer,
} from '../support/http-chat.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await stopAll();
  await env?.teardown();
});

/** Bearer tokens of the test's users: never to appear in any response. */
const TOKENS: Record<string, string> = { 'alice-s3cret-token': 'alice', 'mallory-s3cret-token': 'mallory' };

const authenticate: AgentHandlerOptions['authenticate'] = (request) => {
  const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  const userId = token ? TOKENS[token] : undefined;
  return userId ? { userId } : null;
};

/** `delete_file` needs approval; `list_files` does not. */
function filesAgent(model: ScriptedLanguageModel, deleted: string[]): Agent {
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
  const listFiles = createTool({
    name: 'list_files',
    description: 'Lists files.',
    parameters: z.object({}),
    execute: async () => ['a.txt', 'b.txt'],
  });
  return new Agent({ name: 'files', instructions: '', model, tools: [deleteFile, listFiles] });
}

async function withChat<T>(
  model: ScriptedLanguageModel | Agent,
  fn: (chat: { server: TestHttpServer; harness: HarnessClient; deleted: string[] }) => Promise<T>,
  options: Partial<AgentHandlerOptions> = {},
): Promise<T> {
  const deleted: string[] = [];
  const agent = model instanceof Agent ? model : filesAgent(model, deleted);
  return await withAgentWorker(env, [agent], async (harness) => {
    const handler = createAgentHandler({
      client: harness.client,
      agent: agent.name,
      authenticate,
      conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
      onError: () => undefined,
      ...options,
    });
    const server = await serveHandler(handler);
    try {
      return await fn({ server, harness, deleted });
    } finally {
      await server.close();
    }
  });
}

const as = (user: 'alice' | 'mallory', extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${user}-s3cret-token`,
  ...extra,
});

/** POSTs a chat body as DefaultChatTransport does. */
async function postChat(
  server: TestHttpServer,
  chatId: string,
  messages: UIMessage[],
  user: 'alice' | 'mallory' = 'alice',
): Promise<Response> {
  return await fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: as(user, { 'content-type': 'application/json' }),
    body: JSON.stringify({ id: chatId, messages, trigger: 'submit-message', messageId: undefined }),
  });
}

async function errorOf(response: Response): Promise<{ status: number; code: string; text: string }> {
  const text = await response.text();
  return { status: response.status, code: (JSON.parse(text) as { error: { code: string } }).error.code, text };
}

/** The chat turns' runs on the harness's task queue (each chat's conversation workflow is not one). */
async function chatRuns(harness: HarnessClient) {
  const runs = [];
  const query = `WorkflowId STARTS_WITH 'chat-' AND WorkflowType = 'agentRun' AND TaskQueue = '${harness.taskQueue}'`;
  for await (const run of harness.client.list(query)) runs.push(run);
  return runs;
}

const chatId = () => `chat${Math.random().toString(36).slice(2, 10)}`;

function approvalModel(): ScriptedLanguageModel {
  return new ScriptedLanguageModel([
    {
      text: 'Deleting a.txt.',
      toolCalls: [{ toolName: 'delete_file', input: { path: 'a.txt' }, toolCallId: 'del-a' }],
    },
    { text: 'Done: a.txt is gone.' },
  ]);
}

describe('durable-agent/http: useChat over a durable run', () => {
  it('streams a turn with a tool approval: the request ends the response, the approval continues the same run', async () => {
    await withChat(approvalModel(), async ({ server, deleted }) => {
      const id = chatId();
      const first = await postChat(server, id, [userMessage('delete a.txt')]);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
      expect(first.headers.get('content-type')).toBe('text/event-stream');
      const chunks = await chunksOf(first);
      const types = chunks.map((c) => c.type);
      expect(types[0]).toBe('start');
      expect(types).toContain('tool-approval-request');
      expect(types.at(-1)).toBe('finish');
      const message = await messageOf(chunks);
      expect(textOf(message)).toBe('Deleting a.txt.');
      const tool = message.parts.find((p) => p.type === 'tool-delete_file');
      expect(tool).toMatchObject({ state: 'approval-requested', toolCallId: 'del-a', input: { path: 'a.txt' } });
      expect(message.metadata).toMatchObject({ durableAgent: { status: 'waiting' } });
      expect(deleted).toEqual([]);

      const second = await postChat(server, id, [userMessage('delete a.txt'), answered(message, true)]);
      expect(second.status).toBe(200);
      const rest = await chunksOf(second);
      // Nothing the page already has is sent again.
      expect(rest.filter((c) => c.type === 'tool-approval-request')).toEqual([]);
      const final = await messageOf(rest, answered(message, true));
      expect(textOf(final)).toBe('Deleting a.txt.Done: a.txt is gone.');
      expect(final.parts.find((p) => p.type === 'tool-delete_file')).toMatchObject({
        state: 'output-available',
        output: 'deleted a.txt',
      });
      expect(rest.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
      expect(deleted).toEqual(['a.txt']);

      // The turn has ended: nothing to resume, and the same approval again is refused.
      const resumed = await fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('alice') });
      expect(resumed.status).toBe(204);
      const replayed = await postChat(server, id, [userMessage('delete a.txt'), answered(message, true)]);
      expect(await errorOf(replayed)).toMatchObject({ status: 409, code: 'Run.Ended' });
    });
  });

  it('a chat is a conversation: turn 2 refers back to turn 1, and its model prompt holds turn 1', async () => {
    // The scripted model answers from its prompt: a question about the name finds it in an earlier user message.
    const rememberer = new ScriptedLanguageModel(
      Array.from({ length: 2 }, () => (request: ScriptedRequest) => {
        const earlier = request.prompt
          .filter((m) => m.role === 'user')
          .map((m) => m.content.map((p) => (p.type === 'text' ? p.text : '')).join(''))
          .slice(0, -1)
          .join(' ');
        const name = /my name is (\w+)/i.exec(earlier)?.[1];
        if (/what is my name/i.test(request.lastUserText)) return { text: name ? `Your name is ${name}.` : 'No idea.' };
        return { text: 'Nice to meet you.' };
      }),
    );
    await withChat(rememberer, async ({ server, harness }) => {
      const id = chatId();
      const first = await chunksOf(await postChat(server, id, [userMessage('My name is Ada.', 'u1')]));
      const answer1 = await messageOf(first);
      expect(textOf(answer1)).toBe('Nice to meet you.');
      expect(first[0]).toEqual({ type: 'start', messageId: `msg-${id}-turn-1` });
      // The page sends its whole history; only the last message counts, the transcript is the server's.
      const history = [userMessage('My name is Ada.', 'u1'), answer1, userMessage('What is my name?', 'u2')];
      const second = await chunksOf(await postChat(server, id, history));
      expect(second[0]).toEqual({ type: 'start', messageId: `msg-${id}-turn-2` });
      expect(textOf(await messageOf(second))).toBe('Your name is Ada.');
      const prompt = rememberer.requests[1]!.prompt.map((m) => [
        m.role,
        typeof m.content === 'string' ? m.content : m.content.map((p) => ('text' in p ? p.text : p.type)).join(''),
      ]);
      expect(prompt).toEqual([
        ['user', 'My name is Ada.'],
        ['assistant', 'Nice to meet you.'],
        ['user', 'What is my name?'],
      ]);
      // One conversation workflow for the chat, one run per turn, under the user's key.
      const runs = await chatRuns(harness);
      expect(runs.map((r) => r.workflowId).sort()).toEqual([
        expect.stringMatching(new RegExp(`^chat-[0-9a-f]{24}-${id}/turn-1$`)),
        expect.stringMatching(new RegExp(`^chat-[0-9a-f]{24}-${id}/turn-2$`)),
      ]);
      // A turn's run is the user's, and its tools find the page's chat id in their context.
      const started = (await harness.client.temporal.workflow.getHandle(runs[0]!.workflowId).fetchHistory())
        .events![0]!;
      const runInput = defaultPayloadConverter.fromPayload<{ userId: string; context: Record<string, unknown> }>(
        started.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
      );
      expect(runInput).toMatchObject({ userId: 'alice', context: { chatId: id, userId: 'alice' } });
    });
  });

  it('a follow-up POSTed while a turn runs waits behind it and streams its own answer next', async () => {
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { text: 'First answer, slowly.', delayMs: 2_000 },
        (request: ScriptedRequest) => ({ text: `Second answer, after ${request.prompt.length - 1} messages.` }),
      ],
    });
    await withChat(model, async ({ server }) => {
      const id = chatId();
      const firstResponse = await postChat(server, id, [userMessage('one', 'u1')]);
      await expect.poll(() => model.callCount).toBe(1);
      // The page sends while the first answer is being written (useChat without its client-side queue does).
      const sentAt = Date.now();
      const secondResponse = await postChat(server, id, [userMessage('one', 'u1'), userMessage('two', 'u2')]);
      expect(secondResponse.status).toBe(200);
      const [first, second] = await Promise.all([chunksOf(firstResponse), chunksOf(secondResponse)]);
      expect(textOf(await messageOf(first))).toBe('First answer, slowly.');
      expect(second[0]).toEqual({ type: 'start', messageId: `msg-${id}-turn-2` });
      // Turn 2 ran after turn 1 ended, on its transcript: one, its answer, two.
      expect(textOf(await messageOf(second))).toBe('Second answer, after 2 messages.');
      expect(model.requests[1]!.prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(Date.now() - sentAt).toBeGreaterThan(1_000);
      expect(second.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    });
  });

  it('refuses forged, replayed and foreign approvals, deciding nothing', async () => {
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'a.txt' }, toolCallId: 'del-a' }] },
      { toolCalls: [{ toolName: 'delete_file', input: { path: 'b.txt' }, toolCallId: 'del-b' }] },
      { text: 'both gone' },
    ]);
    await withChat(model, async ({ server, deleted }) => {
      const id = chatId();
      const message = await messageOf(await chunksOf(await postChat(server, id, [userMessage('delete both')])));
      const history = (m: UIMessage) => [userMessage('delete both'), m];

      // A token that is not the run's: refused by the handler before anything reaches the run.
      const forged = answered(message, true, (a) => (a.signature = 'guessed-token'));
      expect(await errorOf(await postChat(server, id, history(forged)))).toMatchObject({
        status: 403,
        code: 'Approval.TokenMismatch',
      });
      const noToken = answered(message, true, (a) => delete a.signature);
      expect(await errorOf(await postChat(server, id, history(noToken)))).toMatchObject({
        code: 'Approval.TokenMismatch',
      });
      // An approval id the run never gave.
      const otherId = answered(message, true, (a) => (a.id = 'approval-someone-else'));
      expect(await errorOf(await postChat(server, id, history(otherId)))).toMatchObject({
        status: 403,
        code: 'Approval.UnknownCall',
      });
      // Another user posting the same chat id reaches their own (empty) chat, never alice's run.
      expect(await errorOf(await postChat(server, id, history(answered(message, true)), 'mallory'))).toMatchObject({
        status: 404,
        code: 'Http.NotFound',
      });
      expect(deleted).toEqual([]);

      // The real approval goes through; the run asks for b.txt next.
      const afterA = await chunksOf(await postChat(server, id, history(answered(message, true))));
      const next = await messageOf(afterA, answered(message, true));
      expect(next.parts.filter((p) => p.type === 'tool-delete_file').map((p) => 'state' in p && p.state)).toEqual([
        'output-available',
        'approval-requested',
      ]);
      // Replaying the first approval now (its call is decided) is refused by the run itself.
      const replay = await postChat(server, id, history(answered(message, true)));
      expect(await errorOf(replay)).toMatchObject({ status: 409, code: 'Approval.AlreadyDecided' });

      const done = await messageOf(
        await chunksOf(await postChat(server, id, history(answered(next, false)))),
        answered(next, false),
      );
      expect(done.parts.filter((p) => p.type === 'tool-delete_file').map((p) => 'state' in p && p.state)).toEqual([
        'output-available',
        'output-denied',
      ]);
      expect(textOf(done)).toBe('both gone');
      expect(deleted).toEqual(['a.txt']);
    });
  });

  it('resumes the running turn from its start, 204 when none; stop cancels it while closing only disconnects', async () => {
    const model = new ScriptedLanguageModel([
      { text: 'Thinking it over.', toolCalls: [{ toolName: 'list_files', input: {}, toolCallId: 'ls' }] },
      // The second step takes long enough to resume and stop it (the scripted wait ends when the run is cancelled).
      { text: 'never said', delayMs: 60_000 },
    ]);
    await withChat(model, async ({ server, harness }) => {
      const id = chatId();
      expect((await fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('alice') })).status).toBe(204);
      // The page goes away mid-turn: the response is dropped, the run goes on.
      const leaving = new AbortController();
      const first = await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: as('alice', { 'content-type': 'application/json' }),
        body: JSON.stringify({ id, messages: [userMessage('think')], trigger: 'submit-message' }),
        signal: leaving.signal,
      });
      expect(first.status).toBe(200);
      leaving.abort();

      // Resuming replays the turn so far.
      const resumed = await fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('alice') });
      expect(resumed.status).toBe(200);
      const secondStep = (chunks: UIMessageChunk[]) => chunks.filter((c) => c.type === 'start-step').length === 2;
      const replay = await chunksOf(resumed, secondStep);
      expect(replay[0]).toMatchObject({ type: 'start', messageId: expect.stringMatching(/^msg-/) });
      const replayed = await messageOf(replay);
      expect(textOf(replayed)).toBe('Thinking it over.');
      expect(replayed.parts.find((p) => p.type === 'tool-list_files')).toMatchObject({
        state: 'output-available',
        output: ['a.txt', 'b.txt'],
      });
      // Mallory neither sees nor stops alice's turn.
      expect((await fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('mallory') })).status).toBe(204);
      const foreignStop = await fetch(`${server.url}/api/chat/${id}/stop`, { method: 'POST', headers: as('mallory') });
      expect(foreignStop.status).toBe(204);

      const watching = fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('alice') });
      const stop = await fetch(`${server.url}/api/chat/${id}/stop`, { method: 'POST', headers: as('alice') });
      expect(stop.status).toBe(202);
      expect(await stop.json()).toEqual({ stopped: true, turn: 1 });
      await expect.poll(async () => (await chatRuns(harness)).length).toBe(1);
      const [workflow] = await chatRuns(harness);
      const run = harness.client.getRun(workflow!.workflowId);
      await expect(run.result()).rejects.toThrow();
      expect((await run.handle.describe()).status.name).toBe('CANCELLED');
      const tail = await chunksOf(await watching);
      expect(tail.at(-1)).toEqual({ type: 'abort', reason: 'The run was cancelled.' } satisfies UIMessageChunk);
      expect(textOf(await messageOf(tail))).toBe('Thinking it over.');
      expect((await fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('alice') })).status).toBe(204);
    });
  });

  it("shows an MCP server's question as a data part and takes the answer the run validates", async () => {
    const mcp = new MCPConfiguration({ servers: { asking: stdioAsking() } });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [{ toolCalls: [{ toolName: 'asking_ask', input: {}, toolCallId: 'ask' }] }, { text: 'Thanks.' }],
    });
    const agent = new Agent({ name: 'asker', instructions: '', model, mcp });
    try {
      await withChat(agent, async ({ server }) => {
        const id = chatId();
        const response = await postChat(server, id, [userMessage('ask me')]);
        const reader = chunkReader(response);
        const asked = await reader.until((c) => c.type === 'data-elicitation');
        const question = asked.at(-1) as {
          id: string;
          data: { token: string; requestedSchema: unknown; status: string };
        };
        expect(question.data).toMatchObject({ status: 'pending', requestedSchema: { type: 'object' } });
        const answer = (body: unknown, user: 'alice' | 'mallory' = 'alice', qid = question.id) =>
          fetch(`${server.url}/api/chat/${id}/elicitations/${encodeURIComponent(qid)}`, {
            method: 'POST',
            headers: as(user, { 'content-type': 'application/json' }),
            body: JSON.stringify(body),
          });
        const token = question.data.token;
        expect(await errorOf(await answer({ action: 'accept', content: { ok: true }, token: 'forged' }))).toMatchObject(
          {
            status: 403,
            code: 'Elicitation.TokenMismatch',
          },
        );
        expect(await errorOf(await answer({ action: 'accept', content: { ok: 'yes' }, token }))).toMatchObject({
          status: 422,
          code: 'Elicitation.InvalidAnswer',
        });
        expect(
          await errorOf(await answer({ action: 'accept', content: { ok: true }, token }, 'mallory')),
        ).toMatchObject({
          status: 404,
          code: 'Http.NotFound',
        });
        expect(await errorOf(await answer({ action: 'decline', token }, 'alice', 'no-such-question'))).toMatchObject({
          status: 403,
          code: 'Elicitation.UnknownQuestion',
        });
        const accepted = await answer({ action: 'accept', content: { ok: true }, token });
        expect(accepted.status).toBe(200);
        expect(await accepted.json()).toMatchObject({ answered: { id: question.id, action: 'accept' } });
        // The same response goes on: the part becomes the answer, the tool ends, the model answers.
        const rest = await reader.rest();
        const message = await messageOf([...asked, ...rest]);
        expect(message.parts.find((p) => p.type === 'data-elicitation')).toMatchObject({ data: { status: 'accept' } });
        expect(message.parts.find((p) => p.type === 'tool-asking_ask')).toMatchObject({ state: 'output-available' });
        expect(textOf(message)).toBe('Thanks.');
      });
    } finally {
      await mcp.disconnect();
    }
  });

  it('many pages watching one turn share one subscription to its stream', async () => {
    const model = new ScriptedLanguageModel([
      { text: 'One moment.', toolCalls: [{ toolName: 'list_files', input: {}, toolCallId: 'ls' }] },
      { text: 'Here they are.', delayMs: 2_000 },
    ]);
    await withChat(model, async ({ server, harness }) => {
      const id = chatId();
      const first = postChat(server, id, [userMessage('list')]);
      await expect.poll(async () => (await chatRuns(harness)).length).toBe(1);
      const pages = Array.from({ length: 8 }, () =>
        fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('alice') }).then(chunksOf),
      );
      const all = await Promise.all([first.then(chunksOf), ...pages]);
      for (const chunks of all) expect(textOf(await messageOf(chunks))).toBe('One moment.Here they are.');
      // Each poll of the run's stream is an Update in its history: nine watchers, one poll per offset.
      const [turn] = await chatRuns(harness);
      const history = await harness.client.temporal.workflow.getHandle(turn!.workflowId).fetchHistory();
      const offsets = (history.events ?? []).flatMap((event) => {
        const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
        if (request?.input?.name !== '__temporal_workflow_stream_poll') return [];
        const payload = request.input.args!.payloads![0]!;
        return [defaultPayloadConverter.fromPayload<{ from_offset: number }>(payload).from_offset];
      });
      expect(offsets.length).toBeGreaterThan(0);
      expect(new Set(offsets).size).toBe(offsets.length);
    });
  });

  it('sends SSE keep-alives while a run is quiet', async () => {
    const model = new ScriptedLanguageModel([{ text: 'slow answer', delayMs: 1_500 }]);
    await withChat(
      model,
      async ({ server }) => {
        const response = await postChat(server, chatId(), [userMessage('take your time')]);
        const raw = await response.text();
        expect(raw).toContain(': keep-alive\n\n');
        expect(raw.trimEnd().endsWith('data: [DONE]')).toBe(true);
      },
      { keepAliveMs: 200 },
    );
  });

  it('refuses hostile requests with JSON codes and never echoes a credential', async () => {
    await withChat(
      approvalModel(),
      async ({ server, harness }) => {
        const url = `${server.url}/api/chat`;
        const json = as('alice', { 'content-type': 'application/json' });
        const body = (value: unknown) => JSON.stringify(value);
        const good = { id: 'chat1', messages: [userMessage('hi')], trigger: 'submit-message' };
        const cases: Array<[string, RequestInit & { url?: string }, number, string]> = [
          [
            'no credentials',
            { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(good) },
            401,
            'Http.Unauthenticated',
          ],
          [
            'a wrong token',
            {
              method: 'POST',
              headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
              body: body(good),
            },
            401,
            'Http.Unauthenticated',
          ],
          ['not JSON', { method: 'POST', headers: json, body: '{"id": "x", "messages": [' }, 400, 'Input.Malformed'],
          [
            'no messages',
            { method: 'POST', headers: json, body: body({ id: 'chat1', messages: [] }) },
            400,
            'Input.Malformed',
          ],
          [
            'a bad chat id',
            { method: 'POST', headers: json, body: body({ ...good, id: '../../etc' }) },
            400,
            'Input.Malformed',
          ],
          [
            'a malformed part',
            { method: 'POST', headers: json, body: body({ ...good, messages: [{ id: 1, role: 'user', parts: 'x' }] }) },
            400,
            'Input.Malformed',
          ],
          [
            'wrong content type',
            { method: 'POST', headers: as('alice', { 'content-type': 'text/plain' }), body: body(good) },
            415,
            'Http.WrongContentType',
          ],
          [
            'an oversized body',
            { method: 'POST', headers: json, body: body({ ...good, messages: [userMessage('x'.repeat(70_000))] }) },
            413,
            'Input.TooLarge',
          ],
          [
            'an oversized message',
            { method: 'POST', headers: json, body: body({ ...good, messages: [userMessage('é'.repeat(20_000))] }) },
            413,
            'Input.TooLarge',
          ],
          [
            'regenerate',
            { method: 'POST', headers: json, body: body({ ...good, trigger: 'regenerate-message' }) },
            400,
            'Http.Unsupported',
          ],
          [
            'a cross-site origin',
            { method: 'POST', headers: { ...json, origin: 'https://evil.example' }, body: body(good) },
            403,
            'Http.OriginRefused',
          ],
          [
            'cross-site cookies',
            {
              method: 'POST',
              headers: { ...json, cookie: 'session=1', 'sec-fetch-site': 'cross-site' },
              body: body(good),
            },
            403,
            'Http.OriginRefused',
          ],
          [
            'an unknown route',
            { method: 'GET', headers: as('alice'), url: `${server.url}/api/nothing` },
            404,
            'Http.NotFound',
          ],
          ['a wrong method', { method: 'GET', headers: as('alice') }, 405, 'Http.MethodNotAllowed'],
          [
            'an answer to an unknown chat',
            { method: 'POST', headers: json, url: `${url}/nochat/elicitations/q1`, body: body({ action: 'decline' }) },
            404,
            'Http.NotFound',
          ],
          [
            'a malformed answer',
            { method: 'POST', headers: json, url: `${url}/nochat/elicitations/q1`, body: body({ action: 'maybe' }) },
            400,
            'Input.Malformed',
          ],
        ];
        for (const [name, init, status, code] of cases) {
          const response = await fetch(init.url ?? url, init);
          const { text, ...error } = await errorOf(response);
          expect(error, name).toEqual({ status, code });
          expect(response.headers.get('content-type'), name).toMatch(/^application\/json/);
          for (const token of Object.keys(TOKENS)) expect(text, name).not.toContain(token);
        }
        // The allowed origin (the handler's own) passes.
        const own = await fetch(url, { method: 'POST', headers: { ...json, origin: server.url }, body: body(good) });
        expect(own.status).toBe(200);
        const streamed = await own.text();
        for (const token of Object.keys(TOKENS)) expect(streamed).not.toContain(token);
        // Nothing refused started a run: only the last request did.
        expect((await chatRuns(harness)).length).toBe(1);
      },
      { maxBodyBytes: 64 * 1024 },
    );
  });
});
