// `createAgentHandler` is a standard fetch handler: mounted as is in a Hono app (Hono 4, called through its own
// `fetch`, as Bun, Deno and edge runtimes call it) and as a Next.js route module's GET/POST exports, it serves the
// same durable chat: a turn streams as the UI message stream, its approval continues the same run, the ended turn
// has nothing to resume, and a request without a user is refused with its JSON code.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { UIMessage } from 'ai';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createAgentHandler } from '../../src/http/index.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { answered, chunksOf, messageOf, textOf, userMessage } from '../support/http-chat.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

type Fetch = (request: Request) => Response | Promise<Response>;

/** A page's request to the app at `path`, as alice (her session cookie names her) unless `user` is null. */
function request(path: string, init: { body?: unknown; user?: string | null } = {}): Request {
  const headers: Record<string, string> = { origin: 'http://app.test' };
  if (init.user !== null) headers.cookie = `session=${init.user ?? 'alice'}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return new Request(`http://app.test${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}

/** One turn with an approval, through `app` mounted at /api/chat. */
async function chatThrough(app: Fetch, shipped: number[]): Promise<void> {
  const id = `chat${Math.random().toString(36).slice(2, 10)}`;
  const chat = (messages: UIMessage[]) =>
    app(request('/api/chat', { body: { id, messages, trigger: 'submit-message', messageId: undefined } }));

  const first = await chat([userMessage('ship order 7')]);
  expect(first.status).toBe(200);
  expect(first.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
  const message = await messageOf(await chunksOf(first));
  expect(textOf(message)).toBe('Shipping order 7.');
  expect(message.parts.find((part) => part.type === 'tool-ship')).toMatchObject({ state: 'approval-requested' });
  expect(shipped).toEqual([]);

  const second = await chat([userMessage('ship order 7'), answered(message, true)]);
  expect(second.status).toBe(200);
  const final = await messageOf(await chunksOf(second), answered(message, true));
  expect(textOf(final)).toBe('Shipping order 7.Order 7 is on its way.');
  expect(shipped).toEqual([7]);

  // The turn has ended: nothing to resume; no user, no chat.
  expect((await app(request(`/api/chat/${id}/stream`))).status).toBe(204);
  const anonymous = await app(request(`/api/chat/${id}/stream`, { user: null }));
  expect(anonymous.status).toBe(401);
  expect(await anonymous.json()).toMatchObject({ error: { code: 'Http.Unauthenticated' } });
}

describe('the agent handler in web frameworks', () => {
  it('serves a durable chat with an approval mounted in Hono and as a Next.js route module', async () => {
    const shipped: number[] = [];
    const ship = createTool({
      name: 'ship',
      description: 'Ships an order. A person approves it.',
      parameters: z.object({ order: z.number() }),
      needsApproval: true,
      execute: async ({ order }) => {
        shipped.push(order);
        return `order ${order} shipped`;
      },
    });
    const model = new ScriptedLanguageModel({
      steps: [
        { text: 'Shipping order 7.', toolCalls: [{ toolName: 'ship', input: { order: 7 }, toolCallId: 'ship-7' }] },
        { text: 'Order 7 is on its way.' },
      ],
      stepSelection: 'assistant-turns',
    });
    const agent = new Agent({ name: 'shipper', instructions: '', model, tools: [ship] });
    await withAgentWorker(env, [agent], async (harness) => {
      const handler = createAgentHandler({
        client: harness.client,
        agent: 'shipper',
        authenticate: (req) => {
          const userId = /session=(\w+)/.exec(req.headers.get('cookie') ?? '')?.[1];
          return userId ? { userId } : null;
        },
        allowedOrigins: ['http://app.test'],
        conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
        onError: () => undefined,
      });

      // Hono: its own middleware runs first, then the handler gets the raw request.
      const hono = new Hono();
      hono.use('/api/*', async (c, next) => {
        await next();
        c.header('x-served-by', 'hono');
      });
      hono.all('/api/chat/*', (c) => handler(c.req.raw));
      hono.all('/api/chat', (c) => handler(c.req.raw));
      const viaHono: Fetch = async (req) => {
        const response = await hono.fetch(req);
        expect(response.headers.get('x-served-by')).toBe('hono');
        return response;
      };
      await chatThrough(viaHono, shipped);

      // Next.js: app/api/chat/[[...path]]/route.ts exports the handler as GET and POST.
      shipped.length = 0;
      const route = { GET: handler, POST: handler };
      await chatThrough((req) => (req.method === 'GET' ? route.GET(req) : route.POST(req)), shipped);
    });
  });
});
