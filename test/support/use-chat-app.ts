// The `useChat` page's app for the browser tests (test/browser/use-chat.test.ts, test/drills/use-chat-cross-site.test.ts):
// a web agent on a scripted model (a delete that needs approval, a wait tool), its chat handler behind a session
// cookie, and the page served beside it.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { createAgentHandler } from '../../src/http/index.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker, type HarnessClient } from './agent-harness.js';
import type { TestBrowser } from './browser.js';
import { serveChatPage } from './chat-page.js';
import type { TestHttpServer } from './http-chat.js';

export const SESSION = 'alice-session-s3cret';
export const deleted: string[] = [];

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
export interface Received {
  path: string;
  origin: string | null;
  session: boolean;
  status: number;
}

/** What the pages need from the test file: its Temporal environment, its browser and the bundled page script. */
export interface ChatPageContext {
  env: TestWorkflowEnvironment;
  browser: TestBrowser;
  appJs: string;
}

/**
 * Runs `fn` with a new page of the chat, served by `createAgentHandler` for the web agent on a worker of its own; the
 * browser carries the session cookie, and every request the handler answered is in `received`.
 */
export async function withPage<T>(
  { env, browser, appJs }: ChatPageContext,
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

/** How many times `text` appears on the page. */
export async function countOf(page: Page, text: string): Promise<number> {
  const body = (await page.textContent('main')) ?? '';
  return body.split(text).length - 1;
}

/** The visibility query of the chat turns' runs (a chat's conversation workflow is not one). */
export const turnRuns = (harness: HarnessClient) => `TaskQueue = '${harness.taskQueue}' AND WorkflowType = 'agentRun'`;
