// A real `useChat` page (React + @ai-sdk/react, bundled at test time) in headless Chromium against
// `createAgentHandler`, a worker with a scripted model and the real Temporal server: the answer appears, a tool
// approval is clicked, a reload mid-turn resumes without repeating text, Stop cancels the durable turn, and a second
// message is the chat's second turn, answered from the first. (A worker SIGKILLed mid-answer: use-chat-crash.test.ts.)
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { ask, bundleChatPage, messageTexts, newChatUrl } from '../support/chat-page.js';
import { createTestEnv } from '../support/temporal.js';
import { countOf, deleted, turnRuns, withPage, type ChatPageContext } from '../support/use-chat-app.js';

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

const pages = (): ChatPageContext => ({ env, browser, appJs });

const chatUrl = newChatUrl;

describe('useChat in a real browser', () => {
  it('shows the answer, and a clicked approval continues the same run', async () => {
    await withPage(pages(), async (page, server) => {
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
    await withPage(pages(), async (page, server) => {
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
    await withPage(pages(), async (page, server, harness) => {
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
    await withPage(pages(), async (page, server, harness) => {
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
