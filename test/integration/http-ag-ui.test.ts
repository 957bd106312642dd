// AG-UI on a durable run over real HTTP against the real Temporal server: every event validated by
// `@ag-ui/core`'s own schemas; a run that waits for an approval and an MCP question finishes with an interrupt
// for each (the question's with its responseSchema), and `RunAgentInput.resume` answers them on the same durable
// run; a client connecting again rejoins the turn; forged interrupts decide nothing.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { EventType, type AGUIEvent, type Interrupt, type RunAgentInput } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { interruptIdOf, parseInterruptId } from '../../src/http/ag-ui-events.js';
import { createAgentHandler } from '../../src/http/index.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { stdioAsking, stopAll } from '../fixtures/mcp/servers.js';
import { withAgentWorker } from '../support/agent-harness.js';
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

const deleted: string[] = [];

function agent(mcp: MCPConfiguration): Agent {
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
  // One step asks for an approval and, in parallel, calls the MCP tool whose server asks a question.
  const model = new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [
      {
        text: 'Working on it.',
        toolCalls: [
          { toolName: 'delete_file', input: { path: 'a.txt' }, toolCallId: 'del' },
          { toolName: 'asking_ask', input: {}, toolCallId: 'ask' },
        ],
      },
      { text: 'All done.' },
    ],
  });
  return new Agent({ name: 'agui', instructions: '', model, tools: [deleteFile], mcp });
}

/** The AG-UI events of a response, each validated by `@ag-ui/core`'s schema. */
async function eventsOf(response: Response): Promise<AGUIEvent[]> {
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const text = await response.text();
  return text
    .split('\n\n')
    .flatMap((frame) => frame.split('\n').filter((line) => line.startsWith('data: ')))
    .map((line) => EventSchemas.parse(JSON.parse(line.slice('data: '.length))) as AGUIEvent);
}

function input(threadId: string, runId: string, extra: Partial<RunAgentInput> = {}): RunAgentInput {
  return {
    threadId,
    runId,
    messages: [{ id: 'u1', role: 'user', content: 'clean up and ask me' }],
    tools: [],
    context: [],
    ...extra,
  };
}

const post = (server: TestHttpServer, body: unknown, user = 'alice') =>
  fetch(`${server.url}/api/agui`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

function finishedOf(events: AGUIEvent[]) {
  const last = events.at(-1) as Extract<AGUIEvent, { type: EventType.RUN_FINISHED }>;
  expect(last.type).toBe(EventType.RUN_FINISHED);
  return last;
}

describe('AG-UI on a durable run', () => {
  it('finishes with an approval and an elicitation interrupt, resumed on the same durable run', async () => {
    const mcp = new MCPConfiguration({ servers: { asking: stdioAsking() } });
    try {
      await withAgentWorker(env, [agent(mcp)], async (harness) => {
        const handler = createAgentHandler({
          client: harness.client,
          agent: 'agui',
          authenticate: (request) => {
            const user = /^Bearer (alice|mallory)$/.exec(request.headers.get('authorization') ?? '')?.[1];
            return user ? { userId: user } : null;
          },
          conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
          onError: () => undefined,
        });
        const server = await serveHandler(handler);
        try {
          const thread = `t${Math.random().toString(36).slice(2, 10)}`;
          const first = await eventsOf(await post(server, input(thread, 'run-1')));
          expect(first[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: thread, runId: 'run-1' });
          expect(first.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)).toMatchObject([
            { delta: 'Working on it.' },
          ]);
          expect(
            first.filter((e) => e.type === EventType.TOOL_CALL_START).map((e) => 'toolCallName' in e && e.toolCallName),
          ).toEqual(['delete_file', 'asking_ask']);
          const outcome = finishedOf(first).outcome as { type: string; interrupts: Interrupt[] };
          expect(outcome.type).toBe('interrupt');
          const approval = outcome.interrupts.find((i) => i.reason === 'tool_approval')!;
          const question = outcome.interrupts.find((i) => i.reason === 'mcp_elicitation')!;
          expect(approval).toMatchObject({ toolCallId: 'del', responseSchema: { required: ['approved'] } });
          expect(question).toMatchObject({
            toolCallId: 'ask',
            responseSchema: { properties: { ok: { type: 'boolean' } } },
          });

          // The user message became turn 1: the response echoes the thread with it marked, as a client keeps it.
          const snapshot = first.find((e) => e.type === EventType.MESSAGES_SNAPSHOT);
          const sent = snapshot?.type === EventType.MESSAGES_SNAPSHOT ? snapshot.messages : [];
          expect(sent).toEqual([{ ...input(thread, 'x').messages[0], metadata: { durableAgent: { turn: 1 } } }]);
          // Connecting again with that thread (nothing of the answer kept) rejoins the turn from its start and ends on
          // the same interrupts: the message is not sent a second time.
          const again = await eventsOf(await post(server, input(thread, 'run-2', { messages: sent })));
          // A mark naming a turn the thread never had, or another user's thread: nothing to rejoin, nothing sent.
          const forgedMark = [{ ...sent[0]!, metadata: { durableAgent: { turn: 99 } } }];
          const unknownTurn = await post(server, input(thread, 'run-x', { messages: forgedMark as typeof sent }));
          expect(unknownTurn.status).toBe(404);
          expect((await post(server, input(thread, 'run-y', { messages: sent }), 'mallory')).status).toBe(404);
          expect(again.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)).toMatchObject([
            { delta: 'Working on it.' },
          ]);
          expect((finishedOf(again).outcome as { interrupts: Interrupt[] }).interrupts.map((i) => i.id).sort()).toEqual(
            outcome.interrupts.map((i) => i.id).sort(),
          );

          // A forged interrupt id, a tampered token, another user: refused, nothing decided.
          const resume = (entries: RunAgentInput['resume'], user = 'alice') =>
            post(server, input(thread, 'run-3', { resume: entries }), user);
          const forged = await resume([
            { interruptId: 'da1.bm90LWpzb24', status: 'resolved', payload: { approved: true } },
          ]);
          expect(forged.status).toBe(403);
          expect(await forged.json()).toMatchObject({ error: { code: 'Approval.UnknownCall' } });
          const tampered = interruptIdOf({ ...parseInterruptId(approval.id)!, token: 'guessed' });
          const wrongToken = await resume([{ interruptId: tampered, status: 'resolved', payload: { approved: true } }]);
          expect(wrongToken.status).toBe(403);
          expect(await wrongToken.json()).toMatchObject({ error: { code: 'Approval.TokenMismatch' } });
          const foreign = await resume(
            [{ interruptId: approval.id, status: 'resolved', payload: { approved: true } }],
            'mallory',
          );
          expect(foreign.status).toBe(404);
          expect(deleted).toEqual([]);

          const resumed = await eventsOf(
            await resume([
              { interruptId: approval.id, status: 'resolved', payload: { approved: true } },
              { interruptId: question.id, status: 'resolved', payload: { ok: true } },
            ]),
          );
          expect(resumed[0]).toMatchObject({ type: EventType.RUN_STARTED, runId: 'run-3' });
          expect(
            resumed
              .filter((e) => e.type === EventType.TOOL_CALL_RESULT)
              .map((e) => 'toolCallId' in e && e.toolCallId)
              .sort(),
          ).toEqual(['ask', 'del']);
          expect(resumed.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)).toMatchObject([
            { delta: 'All done.' },
          ]);
          expect(finishedOf(resumed).outcome).toEqual({ type: 'success' });
          expect(deleted).toEqual(['a.txt']);
          // The same answers again: the run has ended.
          const replay = await resume([{ interruptId: approval.id, status: 'resolved', payload: { approved: true } }]);
          expect(replay.status).toBe(409);
        } finally {
          await server.close();
        }
      });
    } finally {
      await mcp.disconnect();
    }
  });
});
