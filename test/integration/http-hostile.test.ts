// `durable-agent/http` against hostile and careless browsers, over real HTTP (`toNodeListener`, raw sockets where a
// browser's own request cannot be made with fetch), the real Temporal server and a real worker: a refused POST must
// not poison its keep-alive connection, a cross-site request (however its target is spelled) changes no run, a client
// that never reads holds one bounded buffer and is dropped, a flood of metadata or nesting is refused before any
// work and before anything is queued, and a retried send is the same turn.
import { EventType, type AGUIEvent, type RunAgentInput } from '@ag-ui/core';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { createAgentHandler, toNodeListener, type AgentHandlerOptions } from '../../src/http/index.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { CROSS_SITE_VARIANTS, RawConnection, crossSiteRequest, reconnectStorm } from '../support/hostile-browser.js';
import { chunksOf, messageOf, userMessage } from '../support/http-chat.js';
import { chatRuns, errorCodeOf, filesAgent, serveFilesApp } from '../support/http-files-app.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** `Bearer <user>` is that user; `Bearer long-<n>` a user whose id is `n` characters long. */
const authenticate: AgentHandlerOptions['authenticate'] = (request) => {
  const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  if (!token) return null;
  const long = /^long-(\d+)$/.exec(token);
  return { userId: long ? 'u'.repeat(Number(long[1])) : token };
};
const as = (user: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${user}`, ...extra });
const JSON_TYPE = { 'content-type': 'application/json' };

const serveBoth = (client: AgentClient, options: Partial<AgentHandlerOptions> = {}) =>
  serveFilesApp(client, authenticate, options);

const chatId = () => `chat${Math.random().toString(36).slice(2, 10)}`;

async function errorOf(response: Response): Promise<[number, string | undefined]> {
  return [response.status, errorCodeOf(await response.text())];
}

/** A client with no worker behind it: routes refused at the door never need one. */
const idleClient = () => new AgentClient({ client: env.client, taskQueue: `hostile-idle-${Date.now()}` });

describe('durable-agent/http under hostile browsers', () => {
  it('caps event streams per user and in all: a refused one is 429 with retry-after, a closed one frees its slot', async () => {
    await withAgentWorker(env, [filesAgent([{ text: 'Done.', delayMs: 10_000 }])], async (harness) => {
      const server = await serveBoth(harness.client);
      try {
        const id = chatId();
        const reading = new AbortController();
        const first = fetch(`${server.url}/api/chat`, {
          method: 'POST',
          signal: reading.signal,
          headers: as('ada', JSON_TYPE),
          body: JSON.stringify({ id, messages: [userMessage('take your time')], trigger: 'submit-message' }),
        })
          .then((response) => response.text())
          .catch(() => '');
        await expect.poll(async () => (await chatRuns(harness))[0]?.workflowId, { timeout: 20_000 }).toBeDefined();
        // Caps: two streams per user, or two in all; a refused one is 429 with retry-after. A closed one gives its
        // slot back.
        for (const cap of [{ maxStreamsPerUser: 2 }, { maxStreams: 2 }]) {
          const capped = await serveBoth(harness.client, cap);
          try {
            // Two pages hold a stream each (unread).
            const held = await Promise.all(
              [1, 2].map(() => fetch(`${capped.url}/api/chat/${id}/stream`, { headers: as('ada') })),
            );
            expect(held.map((response) => response.status)).toEqual([200, 200]);
            // A stream that opens is closed at once: the answer is what counts.
            const stream = async () => {
              const response = await fetch(`${capped.url}/api/chat/${id}/stream`, { headers: as('ada') });
              if (response.status === 200) await response.body?.cancel();
              const code = response.status === 200 ? undefined : errorCodeOf(await response.text());
              return { status: response.status, code, retryAfter: response.headers.get('retry-after') };
            };
            await expect.poll(stream).toEqual({ status: 429, code: 'Http.TooManyStreams', retryAfter: '5' });
            await held[0]!.body?.cancel();
            await expect.poll(async () => (await stream()).status, { timeout: 5_000 }).toBe(200);
            await held[1]!.body?.cancel();
          } finally {
            await capped.close();
          }
        }
        // A reconnect storm (a reload loop): 80 resumes, 20 at a time, each dropped as soon as it answers. Each is a
        // stream or a 429 with its code, and when it is over every slot is free again.
        const storm = await reconnectStorm(80, 20, async () => {
          const response = await fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('ada') });
          if (response.status === 200) {
            await response.body?.cancel();
            return 'stream';
          }
          return `${response.status} ${errorCodeOf(await response.text())}`;
        });
        const answers = new Set(storm.map((result) => (result.status === 'fulfilled' ? result.value : 'failed')));
        expect([...answers].filter((answer) => answer !== 'stream' && answer !== '429 Http.TooManyStreams')).toEqual(
          [],
        );
        // The turn's own response holds one of ada's 16: the other 15 open again.
        const reopen = async () => {
          const after = await Promise.all(
            Array.from({ length: 15 }, () => fetch(`${server.url}/api/chat/${id}/stream`, { headers: as('ada') })),
          );
          for (const response of after) await response.body?.cancel();
          return after.filter((response) => response.status === 200).length;
        };
        await expect.poll(reopen, { timeout: 5_000 }).toBe(15);
        reading.abort();
        await first.catch(() => undefined);
      } finally {
        await server.close();
      }
    });
  });

  it('answers the next request on a keep-alive connection at once after any refusal made before the body was read', async () => {
    const server = await serveBoth(idleClient(), { maxBodyBytes: 16 * 1024 });
    try {
      const bodyOf = (chars: number) => JSON.stringify({ id: 'c1', messages: [userMessage('x'.repeat(chars))] });
      const refusals: Array<[string, { method: string; target: string; headers: Record<string, string> }, number]> = [
        ['no user', { method: 'POST', target: '/api/chat', headers: JSON_TYPE }, 401],
        [
          'cross-site',
          { method: 'POST', target: '/api/chat', headers: as('ada', { ...JSON_TYPE, origin: 'https://evil.example' }) },
          403,
        ],
        ['no route', { method: 'POST', target: '/api/nothing', headers: as('ada', JSON_TYPE) }, 404],
        ['wrong method', { method: 'PUT', target: '/api/chat', headers: as('ada', JSON_TYPE) }, 405],
        ['too large', { method: 'POST', target: '/api/chat', headers: as('ada', JSON_TYPE) }, 413],
      ];
      const next = { method: 'GET', target: '/api/chat/c1/stream', headers: as('ada') };
      for (const [name, request, status] of refusals) {
        // A small body is drained: the same connection answers the next request at once.
        const connection = await RawConnection.open(server.url);
        try {
          const refused = await connection.request({ ...request, body: bodyOf(30_000) });
          expect([name, refused.status]).toEqual([name, status]);
          const answered = await connection.request(next, 2_000);
          expect([name, answered.status]).toEqual([name, 204]);
          expect(answered.ms, name).toBeLessThan(1_000);
        } finally {
          connection.close();
        }
        // A large one (announced, only partly sent: the client still writes it): the answer comes, then the
        // connection closes at once, so the client sends its next request on a fresh one. It used to wait ~6 s.
        const large = await RawConnection.open(server.url);
        try {
          large.send({
            ...request,
            headers: { ...request.headers, 'content-length': String(8 * 1024 * 1024) },
            body: bodyOf(300_000),
          });
          const refused = await large.response(2_000);
          expect([name, refused.status]).toEqual([name, status]);
          const started = performance.now();
          large.send(next);
          const outcome = await large.response(3_000).then(
            (response) => `answered ${response.status}`,
            (error: Error) => (/closed/.test(error.message) ? 'closed' : 'hung'),
          );
          expect([name, outcome]).toEqual([name, 'closed']);
          expect(performance.now() - started, name).toBeLessThan(1_000);
        } finally {
          large.close();
        }
      }
      const started = performance.now();
      expect((await fetch(`${server.url}/api/chat/c1/stream`, { headers: as('ada') })).status).toBe(204);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await server.close();
    }
  });

  it('passes every Set-Cookie of a response through toNodeListener', async () => {
    const { createServer } = await import('node:http');
    const chat = createAgentHandler({ client: idleClient(), agent: 'files', authenticate, onError: () => undefined });
    // An auth middleware that refreshes the session and sets a preference on the handler's answer.
    const withCookies = async (request: Request) => {
      const response = await chat(request);
      const headers = new Headers(response.headers);
      headers.append('set-cookie', 'session=abc; HttpOnly; Path=/');
      headers.append('set-cookie', 'theme=dark; Path=/');
      return new Response(response.body, { status: response.status, headers });
    };
    const server = createServer(toNodeListener(withCookies));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${port}/api/chat/c1/stream`, { headers: as('ada') });
      expect(response.status).toBe(204);
      expect(response.headers.getSetCookie()).toEqual(['session=abc; HttpOnly; Path=/', 'theme=dark; Path=/']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('refuses at the door, with a clear 400, a user id longer than runs record as approver', async () => {
    const server = await serveBoth(idleClient());
    try {
      const stream = (user: string) => fetch(`${server.url}/api/chat/c1/stream`, { headers: as(user) });
      expect((await stream('long-200')).status).toBe(204);
      for (const length of [201, 500]) {
        const refused = await stream(`long-${length}`);
        expect(await errorOf(refused)).toEqual([400, 'Http.InvalidUser']);
      }
      const inbox = await fetch(`${server.url}/api/inbox`, { headers: as('long-201') });
      expect(await errorOf(inbox)).toEqual([400, 'Http.InvalidUser']);
    } finally {
      await server.close();
    }
  });

  it('refuses cross-site requests to every state-changing route, however the target is spelled; the waiting run is untouched', async () => {
    const deleted: string[] = [];
    const agent = filesAgent(
      [
        { text: 'Deleting.', toolCalls: [{ toolName: 'delete_file', input: { path: 'a.txt' }, toolCallId: 'del-a' }] },
        { text: 'Done.' },
      ],
      deleted,
    );
    await withAgentWorker(env, [agent], async (harness) => {
      const server = await serveBoth(harness.client);
      try {
        const id = chatId();
        const first = await fetch(`${server.url}/api/chat`, {
          method: 'POST',
          headers: as('ada', JSON_TYPE),
          body: JSON.stringify({ id, messages: [userMessage('delete a.txt')], trigger: 'submit-message' }),
        });
        const message = await messageOf(await chunksOf(first));
        const part = message.parts.find((p) => 'state' in p && p.state === 'approval-requested') as {
          approval: { id: string; signature?: string };
        };
        const [turn] = await chatRuns(harness);
        const workflowId = encodeURIComponent(turn!.workflowId);
        const approvedMessage = {
          ...message,
          parts: message.parts.map((p) =>
            'state' in p && p.state === 'approval-requested'
              ? { ...p, state: 'approval-responded', approval: { ...p.approval, approved: true } }
              : p,
          ),
        };
        const routes: Array<{ path: string; body: unknown }> = [
          { path: '/api/chat', body: { id, messages: [userMessage('delete a.txt'), approvedMessage] } },
          { path: '/api/chat', body: { id, messages: [userMessage('delete b.txt', 'u2')] } },
          { path: `/api/chat/${id}/stop`, body: {} },
          { path: `/api/chat/${id}/elicitations/q1`, body: { action: 'decline' } },
          {
            path: '/api/agui',
            body: {
              threadId: id,
              runId: 'r1',
              messages: [{ id: 'u9', role: 'user', content: 'delete c.txt' }],
              tools: [],
              context: [],
            },
          },
          {
            path: `/api/inbox/runs/${workflowId}/approvals/del-a`,
            body: { approved: true, token: part.approval.signature },
          },
          { path: `/api/inbox/runs/${workflowId}/elicitations/q1`, body: { action: 'decline', token: 't' } },
          { path: `/api/inbox/runs/${workflowId}/tool-results/del-a`, body: { output: 'x' } },
        ];
        for (const route of routes) {
          for (const variant of CROSS_SITE_VARIANTS) {
            const answer = await crossSiteRequest(server.url, variant, {
              method: 'POST',
              path: route.path,
              headers: as('ada', JSON_TYPE),
              body: JSON.stringify(route.body),
            });
            expect([route.path, variant, answer.status, errorCodeOf(answer.body)]).toEqual([
              route.path,
              variant,
              403,
              'Http.OriginRefused',
            ]);
          }
        }
        // Nothing changed: the turn still waits for the same approval, nothing was deleted, no turn was added.
        const state = await harness.client.getRun(turn!.workflowId).state();
        expect(state.status).toBe('waiting');
        expect(state.pendingApprovals.map((p) => p.toolCallId)).toEqual(['del-a']);
        expect(deleted).toEqual([]);
        expect((await chatRuns(harness)).length).toBe(1);
        // Nested JSON deep enough to overflow a recursive parser is refused with a code, never a 500.
        const deep = (inner: string) => '['.repeat(20_000) + inner + ']'.repeat(20_000);
        const deepBodies: Array<[string, string]> = [
          [`/api/inbox/runs/${workflowId}/tool-results/del-a`, `{"output":${deep('1')}}`],
          [
            '/api/agui',
            JSON.stringify({ threadId: id, runId: 'r2', messages: [], tools: [], context: [] }).replace(
              '"messages":[]',
              `"messages":[],"resume":[{"interruptId":"x","status":"resolved","payload":${deep('1')}}]`,
            ),
          ],
          ['/api/chat', `{"id":"${id}","messages":${deep('')}}`],
          [`/api/chat/${id}/elicitations/q1`, `{"action":"accept","content":{"a":${deep('1')}}}`],
        ];
        for (const [path, body] of deepBodies) {
          const refused = await fetch(`${server.url}${path}`, { method: 'POST', headers: as('ada', JSON_TYPE), body });
          expect([path, ...(await errorOf(refused))]).toEqual([path, 413, 'Input.TooLarge']);
        }
        expect((await harness.client.getRun(turn!.workflowId).state()).pendingApprovals).toHaveLength(1);
      } finally {
        await server.close();
      }
    });
  });

  it('refuses an AG-UI thread with a flood of metadata before any work, and a retried send is the same turn', async () => {
    await withAgentWorker(
      env,
      [filesAgent([{ text: 'Hello.' }, { text: 'Hello again.' }, { text: 'Hi.' }])],
      async (harness) => {
        const server = await serveBoth(harness.client);
        try {
          const thread = chatId();
          const input = (messages: RunAgentInput['messages'], runId = 'r1'): RunAgentInput => ({
            threadId: thread,
            runId,
            messages,
            tools: [],
            context: [],
            state: {},
            forwardedProps: {},
          });
          const metadata = Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [i.toString(36), 0]));
          const flood = JSON.stringify(
            input([{ id: 'u1', role: 'user', content: 'hi', metadata } as RunAgentInput['messages'][number]]),
          );
          expect(flood.length).toBeLessThan(1024 * 1024);
          // The event loop stays free while the request is refused.
          let worstLagMs = 0;
          let last = performance.now();
          const ticker = setInterval(() => {
            const now = performance.now();
            worstLagMs = Math.max(worstLagMs, now - last - 10);
            last = now;
          }, 10);
          const refused = await fetch(`${server.url}/api/agui`, {
            method: 'POST',
            headers: as('ada', JSON_TYPE),
            body: flood,
          });
          clearInterval(ticker);
          expect(await errorOf(refused)).toEqual([413, 'Input.TooLarge']);
          expect(worstLagMs).toBeLessThan(1_000);
          // Refused before the message was queued: no conversation, no turn.
          expect((await chatRuns(harness)).length).toBe(0);

          // A client that lost the answer and sends the same message again gets the same turn, not a second one.
          const message = { id: 'u1', role: 'user' as const, content: 'hi' };
          const events = async (response: Response) => {
            expect(response.status).toBe(200);
            return (await response.text())
              .split('\n\n')
              .filter((frame) => frame.startsWith('data: '))
              .map((frame) => JSON.parse(frame.slice(6)) as AGUIEvent);
          };
          const post = (body: RunAgentInput) =>
            fetch(`${server.url}/api/agui`, {
              method: 'POST',
              headers: as('ada', JSON_TYPE),
              body: JSON.stringify(body),
            });
          const once = await events(await post(input([message], 'r1')));
          const again = await events(await post(input([message], 'r2')));
          for (const run of [once, again]) {
            expect(run.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
            const snapshot = run.find((event) => event.type === EventType.MESSAGES_SNAPSHOT) as {
              messages: Array<{ metadata?: unknown }>;
            };
            expect(snapshot.messages[0]!.metadata).toEqual({ durableAgent: { turn: 1 } });
          }
          // And the same for useChat: a POST retried with the same message id.
          const chat = chatId();
          const send = () =>
            fetch(`${server.url}/api/chat`, {
              method: 'POST',
              headers: as('ada', JSON_TYPE),
              body: JSON.stringify({ id: chat, messages: [userMessage('hi', 'm1')], trigger: 'submit-message' }),
            });
          const first = await chunksOf(await send());
          const second = await chunksOf(await send());
          expect(first[0]).toEqual(second[0]);
          expect((await chatRuns(harness)).length).toBe(2);
          // A page that reuses an id for another message (a new tab counting from 1 again) sends it.
          const other = await fetch(`${server.url}/api/chat`, {
            method: 'POST',
            headers: as('ada', JSON_TYPE),
            body: JSON.stringify({ id: chat, messages: [userMessage('hi again', 'm1')], trigger: 'submit-message' }),
          });
          expect((await chunksOf(other))[0]).toMatchObject({ type: 'start', messageId: `msg-${chat}-turn-2` });
          expect((await chatRuns(harness)).length).toBe(3);
        } finally {
          await server.close();
        }
      },
    );
  });
});
