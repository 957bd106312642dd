// The inbox's routes over real HTTP against the suite's dev server (with durable-agent's search attributes), a
// worker with scripted models (approval-gated and client-side tools): each user lists their own waiting runs, a
// reviewer everyone's; a run streams live through its wait (chunks checked with `ai`'s own schema); decisions go
// through the run, bound to its token; and hostile requests are refused with their codes.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentApprovalOptions } from '../../src/agent/types.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { createInboxHandler, type InboxListing } from '../../src/http/index.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { chunkReader, serveHandler, type TestHttpServer } from '../support/http-chat.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** A scripted model: the first step calls `tool` (`call-0`), the second answers. */
function agentOf(name: string, tool: 'send_email' | 'pick_color', approval?: AgentApprovalOptions): Agent {
  const sendEmail = createTool({
    name: 'send_email',
    description: 'Sends an email.',
    parameters: z.object({ to: z.string() }),
    needsApproval: true,
    execute: async ({ to }) => `sent to ${to}`,
  });
  const pickColor = createTool({
    name: 'pick_color',
    description: 'Asks the page for a color.',
    parameters: z.object({ of: z.string() }),
  });
  const model = new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [
      {
        toolCalls: [
          { toolName: tool, toolCallId: 'call-0', input: tool === 'send_email' ? { to: 'team@x.org' } : { of: 'sky' } },
        ],
      },
      { text: `${name} is done.` },
    ],
  });
  return new Agent({ name, instructions: '', model, tools: [sendEmail, pickColor], ...(approval ? { approval } : {}) });
}

const USERS: Record<string, string> = { 'Bearer ada': 'ada', 'Bearer bob': 'bob', 'Bearer rita': 'rita' };

async function withInbox(fn: (server: TestHttpServer, start: typeof startRun) => Promise<void>): Promise<void> {
  const agents = [
    agentOf('mailer', 'send_email'),
    agentOf('checked-mailer', 'send_email', { authorizeDecision: (d) => d.approver === 'rita' }),
    agentOf('painter', 'pick_color'),
  ];
  await withAgentWorker(env, agents, async (harness) => {
    const handler = createInboxHandler({
      client: harness.client,
      authenticate: (request) => {
        const userId = USERS[request.headers.get('authorization') ?? ''];
        return userId ? { userId } : null;
      },
      reviewer: (user) => user.userId === 'rita',
      // Runs of other tests wait on the same server: a reviewer here sees this test's task queue only.
      taskQueue: harness.taskQueue,
      onError: (error) => console.error(error),
    });
    const server = await serveHandler(handler);
    runsStarted = [];
    startRun = async (agent, userId, conversationId) => {
      const run = await harness.start(agent, 'Go', { userId, ...(conversationId ? { conversationId } : {}) });
      runsStarted.push(run);
      return run;
    };
    try {
      await fn(server, startRun);
    } finally {
      await server.close();
      await Promise.all(runsStarted.map((run) => run.cancel().catch(() => undefined)));
    }
  });
}
let runsStarted: AgentRun[] = [];
let startRun: (agent: string, userId: string, conversationId?: string) => Promise<AgentRun>;

function call(
  server: TestHttpServer,
  user: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${server.url}/api/inbox${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${user}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

async function listing(server: TestHttpServer, user: string): Promise<InboxListing> {
  const response = await call(server, user, '');
  expect(response.status).toBe(200);
  return (await response.json()) as InboxListing;
}

/** The listing once every run of `runs` shows with its requests. */
async function listingWith(server: TestHttpServer, user: string, runs: AgentRun[]): Promise<InboxListing> {
  let last: InboxListing | undefined;
  await expect
    .poll(
      async () => {
        last = await listing(server, user);
        return runs.every((run) => last!.items.some((item) => item.workflowId === run.id));
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  return last!;
}

const path = (run: AgentRun, rest = '') => `/runs/${encodeURIComponent(run.id)}${rest}`;

async function errorCode(response: Response): Promise<[number, string]> {
  const body = (await response.json()) as { error: { code: string } };
  return [response.status, body.error.code];
}

describe('the inbox over HTTP', () => {
  it('lists what waits for each user (a reviewer sees everyone’s), with who asked and since when', async () => {
    await withInbox(async (server, start) => {
      const ada = await start('mailer', 'ada');
      const bob = await start('painter', 'bob');
      const adas = await listingWith(server, 'ada', [ada]);
      expect(adas.items.map((i) => i.workflowId)).not.toContain(bob.id);
      expect(adas.items.find((i) => i.workflowId === ada.id)).toMatchObject({
        kind: 'approval',
        id: 'call-0',
        toolName: 'send_email',
        args: { to: 'team@x.org' },
        token: expect.any(String),
        requestedAt: expect.any(String),
      });
      expect(adas.runs.find((r) => r.workflowId === ada.id)).toMatchObject({
        agent: 'mailer',
        userId: 'ada',
        waiting: ['approval'],
        since: expect.any(String),
        yours: true,
        available: true,
      });
      const ritas = await listingWith(server, 'rita', [ada, bob]);
      expect(ritas.reviewer).toBe(true);
      expect(ritas.items.find((i) => i.workflowId === bob.id)).toMatchObject({
        kind: 'client-tool',
        toolName: 'pick_color',
      });
      expect(ritas.runs.find((r) => r.workflowId === bob.id)).toMatchObject({ userId: 'bob', yours: false });
      // A user who is not a reviewer never sees another user's run, by listing or by id.
      expect((await listing(server, 'bob')).items.map((i) => i.workflowId)).not.toContain(ada.id);
      expect(await errorCode(await call(server, 'bob', path(ada)))).toEqual([404, 'Http.NotFound']);
      expect(await errorCode(await call(server, 'bob', path(ada, '/stream')))).toEqual([404, 'Http.NotFound']);
    });
  });

  it('streams a run live through its wait; the approval, bound to its token, lets it finish', async () => {
    await withInbox(async (server, start) => {
      const run = await start('mailer', 'ada');
      const [item] = (await listingWith(server, 'ada', [run])).items.filter((i) => i.workflowId === run.id);
      const stream = await call(server, 'ada', path(run, '/stream'));
      expect(stream.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
      const reader = chunkReader(stream);
      const untilRequest = await reader.until((chunk) => chunk.type === 'tool-approval-request');
      expect(untilRequest.find((c) => c.type === 'tool-input-available')).toMatchObject({ toolName: 'send_email' });

      const forged = await call(server, 'ada', path(run, '/approvals/call-0'), { approved: true, token: 'guess' });
      expect(await errorCode(forged)).toEqual([403, 'Approval.TokenMismatch']);
      const unknown = await call(server, 'ada', path(run, '/approvals/nope'), { approved: true, token: 'guess' });
      expect(await errorCode(unknown)).toEqual([403, 'Approval.UnknownCall']);
      const token = item!.kind === 'approval' ? item!.token : undefined;
      const decided = await call(server, 'ada', path(run, '/approvals/call-0'), { approved: true, token });
      expect(decided.status).toBe(200);
      expect(await decided.json()).toMatchObject({ decided: { approved: true, approver: 'ada' } });
      const again = await call(server, 'ada', path(run, '/approvals/call-0'), { approved: true, token });
      // The same decision again is refused, never applied twice: by the run, or, once the approved call has run and
      // the run has finished (it can within milliseconds), as a decision for a run that has ended.
      expect((await errorCode(again))[1]).toMatch(/^(Approval\.(AlreadyDecided|UnknownCall)|Run\.Ended)$/);

      const rest: UIMessageChunk[] = await reader.rest();
      expect(rest.filter((c) => c.type === 'tool-output-available')).toEqual([
        expect.objectContaining({ output: 'sent to team@x.org' }),
      ]);
      expect(rest.filter((c) => c.type === 'text-delta').map((c) => c.delta)).toContain('mailer is done.');
      expect(rest.at(-1)).toMatchObject({ type: 'finish' });
      expect((await run.result()).text).toBe('mailer is done.');
    });
  });

  it('a reviewer decides through the agent’s authorizeDecision, and never acts as the run’s user', async () => {
    await withInbox(async (server, start) => {
      const unchecked = await start('mailer', 'bob');
      const checked = await start('checked-mailer', 'bob');
      const painter = await start('painter', 'bob');
      const { items } = await listingWith(server, 'rita', [unchecked, checked, painter]);
      const tokenOf = (run: AgentRun) => {
        const item = items.find((i) => i.workflowId === run.id);
        return item?.kind === 'approval' ? item.token : undefined;
      };
      // No hook to check a reviewer: the run refuses (only bob may decide).
      const refused = await call(server, 'rita', path(unchecked, '/approvals/call-0'), {
        approved: true,
        token: tokenOf(unchecked),
      });
      expect(await errorCode(refused)).toEqual([403, 'Approval.NotAuthorized']);
      const allowed = await call(server, 'rita', path(checked, '/approvals/call-0'), {
        approved: false,
        reason: 'not today',
        token: tokenOf(checked),
      });
      expect(await allowed.json()).toMatchObject({ decided: { approved: false, approver: 'rita' } });
      const submitted = await call(server, 'rita', path(painter, '/tool-results/call-0'), { output: 'blue' });
      expect(await errorCode(submitted)).toEqual([403, 'Http.NotRunUser']);
      // The run's own user submits it.
      const own = await call(server, 'bob', path(painter, '/tool-results/call-0'), { output: 'blue' });
      expect(own.status).toBe(200);
      expect((await painter.result()).text).toBe('painter is done.');
      expect((await checked.result()).text).toBe('checked-mailer is done.');
    });
  });

  it('lists a conversation’s turns, oldest first, to its user and reviewers only; a run is named by its first run id', async () => {
    await withInbox(async (server, start) => {
      const conversationId = `conv-${Date.now().toString(36)}`;
      const first = await start('mailer', 'ada', conversationId);
      const second = await start('painter', 'ada', conversationId);
      type Listing = { runs: Array<{ workflowId: string; firstRunId: string; agent?: string; status: string }> };
      const turns = async (user: string) =>
        (await (await call(server, user, `/conversations/${conversationId}`)).json()) as Listing;
      await expect.poll(async () => (await turns('ada')).runs.length, { timeout: 20_000 }).toBe(2);
      const { runs } = await turns('ada');
      expect(runs.map((r) => [r.workflowId, r.agent, r.status])).toEqual([
        [first.id, 'mailer', 'RUNNING'],
        [second.id, 'painter', 'RUNNING'],
      ]);
      expect((await turns('bob')).runs).toEqual([]);
      expect((await turns('rita')).runs).toHaveLength(2);
      const pinned = await call(server, 'ada', `${path(first)}?run=${runs[0]!.firstRunId}`);
      expect(await pinned.json()).toMatchObject({ workflowId: first.id, conversationId, userId: 'ada', yours: true });
      const otherRun = await call(server, 'ada', `${path(first)}?run=00000000-0000-4000-8000-000000000000`);
      expect(await errorCode(otherRun)).toEqual([404, 'Http.NotFound']);
    });
  });

  it('refuses hostile requests with their codes', async () => {
    await withInbox(async (server, start) => {
      const run = await start('mailer', 'ada');
      await listingWith(server, 'ada', [run]);
      expect(await errorCode(await call(server, 'nobody', ''))).toEqual([401, 'Http.Unauthenticated']);
      const crossSite = await call(
        server,
        'ada',
        path(run, '/approvals/call-0'),
        { approved: true, token: 't' },
        {
          origin: 'https://evil.example',
        },
      );
      expect(await errorCode(crossSite)).toEqual([403, 'Http.OriginRefused']);
      const huge = await call(server, 'ada', path(run, '/approvals/call-0'), {
        approved: true,
        token: 't',
        reason: 'é'.repeat(20_000),
      });
      expect(await errorCode(huge)).toEqual([413, 'Input.TooLarge']);
      const malformed = await call(server, 'ada', path(run, '/approvals/call-0'), { approved: 'yes', token: 't' });
      expect(await errorCode(malformed)).toEqual([400, 'Input.Malformed']);
      const notJson = await call(server, 'ada', path(run, '/approvals/call-0'), '{"approved":');
      expect(await errorCode(notJson)).toEqual([400, 'Input.Malformed']);
      const wrongMethod = await fetch(`${server.url}/api/inbox${path(run, '/approvals/call-0')}`, {
        headers: { authorization: 'Bearer ada' },
      });
      expect(await errorCode(wrongMethod)).toEqual([405, 'Http.MethodNotAllowed']);
      expect(await errorCode(await call(server, 'ada', '/runs/no-such-run'))).toEqual([404, 'Http.NotFound']);
      expect(await errorCode(await call(server, 'ada', '/elsewhere'))).toEqual([404, 'Http.NotFound']);
      // A workflow that is not an agent run is never served, even to a reviewer.
      await env.client.workflow.start('someOtherWorkflow', {
        taskQueue: 'nobody-polls',
        workflowId: `other-${run.id}`,
      });
      expect(await errorCode(await call(server, 'rita', `/runs/other-${encodeURIComponent(run.id)}`))).toEqual([
        404,
        'Http.NotFound',
      ]);
      await env.client.workflow.getHandle(`other-${run.id}`).terminate();
    });
  });
});
