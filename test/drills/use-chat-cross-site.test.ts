// A drill (`npm run drills`), not in `npm test`: a cross-site page in headless Chromium against the `useChat` page's
// handler (the setup of test/browser/use-chat.test.ts). It passes in 2-3 s here, also beside a CPU hog, yet hung past
// its 150 s in two of three full CI runs (every step bounded; the hang not yet located), so it runs on its own until
// it is. The handler's refusal of cross-origin requests (the //evil.example request-target included) is tested in
// `npm test` by http-hostile with raw sockets.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createAgentHandler } from '../../src/http/index.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { withAgentWorker, type HarnessClient } from '../support/agent-harness.js';
import { ask, bundleChatPage, newChatUrl, serveChatPage } from '../support/chat-page.js';
import { serveHandler, type TestHttpServer } from '../support/http-chat.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
let browser: TestBrowser;
let appJs: string;
beforeAll(async () => {
  [appJs, env, browser] = await Promise.all([bundleChatPage(), createTestEnv(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await env?.teardown();
});

const SESSION = 'alice-session-s3cret';
const deleted: string[] = [];

/** The scripted model's answer for each chat, by what the user asked and how many steps the run took. */
function reply(request: ScriptedRequest) {
  const steps = request.prompt.filter((m) => m.role === 'assistant').length;
  if (/^my name is/i.test(request.lastUserText)) return { text: 'Nice to meet you.' };
  if (/^what is my name/i.test(request.lastUserText)) {
    // Answered from the transcript: the name is in an earlier turn's user message, or it is not known.
    const earlier = request.prompt
      .flatMap((m) => (m.role === 'user' ? m.content : []))
      .map((p) => ('text' in p ? p.text : ''));
    const name = earlier.map((text) => /^my name is (\w+)/i.exec(text)?.[1]).find(Boolean);
    return { text: name ? `Your name is ${name}.` : 'I do not know your name.' };
  }
  if (request.lastUserText.startsWith('delete')) {
    return steps === 0
      ? { text: 'I will delete a.txt.', toolCalls: [{ toolName: 'delete_file', input: { path: 'a.txt' } }] }
      : { text: 'Deleted a.txt for you.' };
  }
  if (request.lastUserText.startsWith('story')) {
    return steps === 0
      ? { text: 'Once upon a time.', toolCalls: [{ toolName: 'wait', input: { ms: 4_000 } }] }
      : { text: 'The end.' };
  }
  return steps === 0
    ? { text: 'Counting.', toolCalls: [{ toolName: 'wait', input: { ms: 200 } }] }
    : { text: 'never said', delayMs: 60_000 };
}

function webAgent(): Agent {
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
  const wait = createTool({
    name: 'wait',
    description: 'Waits.',
    parameters: z.object({ ms: z.number() }),
    execute: async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return 'waited';
    },
  });
  const model = new ScriptedLanguageModel({
    steps: Array.from({ length: 4 }, () => reply),
    stepSelection: 'assistant-turns',
  });
  return new Agent({ name: 'web', instructions: '', model, tools: [deleteFile, wait] });
}

/** A request the handler received: its path, Origin header, whether it carried the session, and the answer's status. */
interface Received {
  path: string;
  origin: string | null;
  session: boolean;
  status: number;
}

async function withPage<T>(
  fn: (page: Page, server: TestHttpServer, harness: HarnessClient, received: Received[]) => Promise<T>,
): Promise<T> {
  const received: Received[] = [];
  return await withAgentWorker(env, [webAgent()], async (harness) => {
    const handler = createAgentHandler({
      client: harness.client,
      agent: 'web',
      // The session cookie a real app would check against its session store.
      authenticate: (request) =>
        /(?:^|;\s*)session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1] === SESSION
          ? { userId: 'alice' }
          : null,
      conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
      onError: (error) => console.error(error),
    });
    const server = await serveChatPage(async (request) => {
      const response = await handler(request);
      received.push({
        path: new URL(request.url).pathname,
        origin: request.headers.get('origin'),
        session: (request.headers.get('cookie') ?? '').includes(SESSION),
        status: response.status,
      });
      return response;
    }, appJs);
    await browser.context.addCookies([{ name: 'session', value: SESSION, url: server.url }]);
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => console.error('page error:', error));
    try {
      return await fn(page, server, harness, received);
    } finally {
      await page.close();
      await server.close();
    }
  });
}

/** The visibility query of the chat turns' runs (a chat's conversation workflow is not one). */
const turnRuns = (harness: HarnessClient) => `TaskQueue = '${harness.taskQueue}' AND WorkflowType = 'agentRun'`;

const chatUrl = newChatUrl;

describe('useChat in a real browser, against a page of another origin', () => {
  it('a page of another origin cannot stop the turn, though the browser sends it the session cookie', async () => {
    await withPage(async (page, server, harness, received) => {
      const url = chatUrl(server);
      const chatId = new URL(url).searchParams.get('chat')!;
      await page.goto(url);
      await ask(page, 'count to a million');
      await page.waitForSelector('.tool[data-tool="wait"][data-state="output-available"]');
      // Another app on the same host: same site (cookies go along), another origin. It posts to the stop route the
      // two ways a page can without the handler's consent: a form that submits itself, and a no-cors fetch.
      const target = `${server.url}/api/chat/${encodeURIComponent(chatId)}/stop`;
      const evilPage =
        `<!doctype html><html><body><form id="f" method="POST" action="${target}" enctype="text/plain">` +
        `<input name="x" value="y"></form><script>` +
        `fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}' })` +
        `.finally(() => { document.title = 'fetched'; document.getElementById('f').submit(); });</script></body></html>`;
      const evil = await serveHandler(async () => new Response(evilPage, { headers: { 'content-type': 'text/html' } }));
      const attacker = await browser.context.newPage();
      const stops = () => received.filter((request) => request.path.endsWith('/stop'));
      try {
        // Only the page's arrival is awaited: its script navigates it away again (the form), maybe before `load`.
        await attacker.goto(evil.url, { waitUntil: 'commit', timeout: 20_000 });
        await expect.poll(() => stops().length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      } finally {
        await attacker.close({ runBeforeUnload: false });
        await evil.close();
      }
      // Both reached the handler with the session cookie and the attacker's origin, and were refused.
      for (const request of stops()) {
        expect(request).toMatchObject({ origin: evil.url, session: true, status: 403 });
      }
      // The turn still runs; the page's own Stop (same origin) still works.
      let status: string | undefined;
      for await (const run of harness.client.list(turnRuns(harness))) status = run.status;
      expect(status).toBe('RUNNING');
      await page.click('#stop', { timeout: 20_000 });
      await expect
        .poll(
          async () => {
            for await (const run of harness.client.list(turnRuns(harness))) return run.status;
            return undefined;
          },
          { timeout: 20_000 },
        )
        .toBe('CANCELLED');
    });
    // Two pages, a second server and two polls: on a loaded CI machine this takes well over the default minute once.
  }, 150_000);
});
