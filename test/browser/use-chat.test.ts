// A real `useChat` page (React + @ai-sdk/react, bundled at test time) in headless Chromium against
// `createAgentHandler`, a worker with a scripted model and the real Temporal server: the answer appears, a tool
// approval is clicked, a reload mid-turn resumes without repeating text, Stop cancels the durable turn, and a second
// message is the chat's second turn, answered from the first. (A worker SIGKILLed mid-answer: use-chat-crash.test.ts.)
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
import { ask, bundleChatPage, messageTexts, newChatUrl, serveChatPage } from '../support/chat-page.js';
import type { TestHttpServer } from '../support/http-chat.js';
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

/** How many times `text` appears on the page. */
async function countOf(page: Page, text: string): Promise<number> {
  const body = (await page.textContent('main')) ?? '';
  return body.split(text).length - 1;
}

/** The visibility query of the chat turns' runs (a chat's conversation workflow is not one). */
const turnRuns = (harness: HarnessClient) => `TaskQueue = '${harness.taskQueue}' AND WorkflowType = 'agentRun'`;

const chatUrl = newChatUrl;

describe('useChat in a real browser', () => {
  it('shows the answer, and a clicked approval continues the same run', async () => {
    await withPage(async (page, server) => {
      await page.goto(chatUrl(server));
      await ask(page, 'delete a.txt');
      await page.waitForSelector('.tool[data-tool="delete_file"][data-state="approval-requested"]');
      expect(await countOf(page, 'I will delete a.txt.')).toBe(1);
      expect(deleted).toEqual([]);
      await page.click('button.approve');
      await page.waitForSelector('text=Deleted a.txt for you.');
      await page.waitForSelector('.tool[data-tool="delete_file"][data-state="output-available"]');
      await page.waitForSelector('#status:text("ready")');
      expect(await countOf(page, 'I will delete a.txt.')).toBe(1);
      expect(await countOf(page, 'Deleted a.txt for you.')).toBe(1);
      expect(deleted).toEqual(['a.txt']);
    });
  });

  it('a reload mid-turn resumes the turn with no text repeated', async () => {
    await withPage(async (page, server) => {
      const url = chatUrl(server);
      await page.goto(url);
      await ask(page, 'story please');
      await page.waitForSelector('.tool[data-tool="wait"][data-state="input-available"]');
      await page.reload();
      // The reloaded page has no messages of its own: useChat({ resume: true }) rejoins the running turn.
      await page.waitForSelector('text=Once upon a time.');
      await page.waitForSelector('text=The end.', { timeout: 30_000 });
      await page.waitForSelector('#status:text("ready")');
      expect(await countOf(page, 'Once upon a time.')).toBe(1);
      expect(await countOf(page, 'The end.')).toBe(1);
      expect(await page.locator('.tool[data-tool="wait"]').count()).toBe(1);
    });
  });

  it('Stop cancels the durable turn', async () => {
    await withPage(async (page, server, harness) => {
      await page.goto(chatUrl(server));
      await ask(page, 'count to a million');
      await page.waitForSelector('.tool[data-tool="wait"][data-state="output-available"]');
      await page.click('#stop');
      await page.waitForSelector('#status:text("ready")');
      await expect
        .poll(
          async () => {
            for await (const run of harness.client.list(turnRuns(harness))) return run.status;
            return undefined;
          },
          { timeout: 20_000 },
        )
        .toBe('CANCELLED');
      expect(await countOf(page, 'never said')).toBe(0);
    });
  });

  it("a second message is the chat's second turn, answered from the first", async () => {
    await withPage(async (page, server, harness) => {
      await page.goto(chatUrl(server));
      await ask(page, 'My name is Ada.');
      await page.waitForSelector('text=Nice to meet you.');
      await page.waitForSelector('#status:text("ready")');
      await ask(page, 'What is my name?');
      await page.waitForSelector('text=Your name is Ada.');
      await page.waitForSelector('#status:text("ready")');
      expect(await messageTexts(page, 'user')).toEqual(['My name is Ada.', 'What is my name?']);
      expect(await messageTexts(page, 'assistant')).toEqual(['Nice to meet you.', 'Your name is Ada.']);
      // One conversation, two turns: two runs of the agent.
      const runs: string[] = [];
      for await (const run of harness.client.list(turnRuns(harness))) runs.push(run.workflowId.replace(/^.*\//, ''));
      expect(runs.sort()).toEqual(['turn-1', 'turn-2']);
    });
  });
});
