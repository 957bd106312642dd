// The inbox page of `durable-agent ui` in headless Chromium, against the suite's dev server (with durable-agent's
// search attributes), a worker with scripted models and the project's MCP fixture server: runs of several users wait
// (an approval, an MCP question, a client-side tool); the page lists them with who asked and since when; a person
// approves the call and answers the question from the page, and the runs finish. A run's page streams it live and
// takes an approval in place; the chat box gets its answer. The inbox's screenshot is the one the README shows
// (UPDATE_SCREENSHOTS=1 writes docs/images/inbox.png; otherwise it goes to a temporary folder).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { startInboxUi, type InboxUi } from '../../src/ui/ui-server.js';
import { stdioFixture, stopAll } from '../fixtures/mcp/servers.js';
import { toolResultsSeen, withAgentWorker, type HarnessClient } from '../support/agent-harness.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { createTestEnv } from '../support/temporal.js';

const SCREENSHOT = fileURLToPath(new URL('../../docs/images/inbox.png', import.meta.url));
/** Who the page acts as. */
const OPERATOR = 'operator';

let env: TestWorkflowEnvironment;
let browser: TestBrowser;
const mcp = new MCPConfiguration({ listBudget: '2m', servers: { crm: stdioFixture() } });
beforeAll(async () => {
  [env, browser] = await Promise.all([createTestEnv(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await mcp.disconnect();
  await stopAll();
  await env?.teardown();
});

const sendEmail = createTool({
  name: 'send_email',
  description: 'Sends an email.',
  parameters: z.object({ to: z.string(), subject: z.string() }),
  needsApproval: true,
  execute: async ({ to }) => `sent to ${to}`,
});
const archiveFolder = createTool({
  name: 'archive_folder',
  description: 'Archives a folder.',
  parameters: z.object({ folder: z.string() }),
  needsApproval: true,
  execute: async ({ folder }) => `archived ${folder}`,
});
const pickColor = createTool({
  name: 'pick_color',
  description: "Asks the user's page for a color.",
  parameters: z.object({ of: z.string() }),
});

/** The scripted agents: each calls one tool, then says it is done (its final text repeats what the tool returned). */
function agents(): Agent[] {
  const scripted = (toolName: string, input: object, done: string) =>
    new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: Array.from({ length: 8 }, () => (request: Parameters<typeof toolResultsSeen>[0]) => {
        const called = request!.prompt.some((m) => m.role === 'assistant');
        if (!called) return { text: `Calling ${toolName}.`, toolCalls: [{ toolName, input, toolCallId: 'call-1' }] };
        const seen = toolResultsSeen(request).get('call-1') as { value?: unknown } | undefined;
        return { text: `${done} ${JSON.stringify(seen?.value ?? seen)}` };
      }),
    });
  return [
    new Agent({
      name: 'mailer',
      instructions: '',
      model: scripted('send_email', { to: 'board@example.com', subject: 'Q3 numbers' }, 'The mailer is done:'),
      tools: [sendEmail],
      // The operator reviews other users' runs: this agent lets them decide.
      approval: { authorizeDecision: (decision) => decision.approver === OPERATOR },
    }),
    new Agent({
      name: 'archiver',
      instructions: '',
      model: scripted('archive_folder', { folder: 'old-invoices' }, 'Archived:'),
      tools: [archiveFolder],
      // No authorizeDecision: only the run's own user decides its calls.
    }),
    new Agent({
      name: 'onboarding',
      instructions: '',
      model: scripted('crm_elicit', { message: 'Who is the new customer?' }, 'Onboarded:'),
      mcp,
    }),
    new Agent({
      name: 'painter',
      instructions: '',
      model: scripted('pick_color', { of: 'the logo' }, 'Painted:'),
      tools: [pickColor],
    }),
    new Agent({
      name: 'helper',
      instructions: '',
      // A message that asks it to take its time gets an answer that never comes (the page stops it).
      model: new ScriptedLanguageModel({
        steps: Array.from(
          { length: 8 },
          () => (request: ScriptedRequest | undefined) =>
            JSON.stringify(request?.prompt.at(-1)).includes('slowly')
              ? { delayMs: 120_000, text: 'Too late.' }
              : { text: 'Hello from the scripted helper.' },
        ),
      }),
    }),
  ];
}

async function withUi(fn: (page: Page, ui: InboxUi, harness: HarnessClient) => Promise<void>): Promise<void> {
  await withAgentWorker(env, agents(), async (harness) => {
    // Its own task queue: runs other tests leave waiting on the same server stay out of the page (and the picture).
    const ui = await startInboxUi({
      client: harness.client,
      user: OPERATOR,
      agent: 'helper',
      taskQueue: harness.taskQueue,
    });
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1100, height: 860 });
    page.on('pageerror', (error) => console.error('page error:', error));
    try {
      await page.goto(ui.url);
      await fn(page, ui, harness);
    } finally {
      await page.close();
      await ui.close();
    }
  });
}

const card = (kind: string, run: AgentRun) => `.card[data-kind="${kind}"][data-run="${run.id}"]`;

describe('the inbox page in a real browser', () => {
  it('lists what waits across users; approving and answering from the page finishes the runs', async () => {
    await withUi(async (page, _ui, harness) => {
      const mail = await harness.start('mailer', 'Send the Q3 numbers to the board', { userId: 'ada' });
      const onboarding = await harness.start('onboarding', 'Onboard the new customer', { userId: OPERATOR });
      const paint = await harness.start('painter', 'Pick a logo color', { userId: 'bob' });
      const archive = await harness.start('archiver', 'Archive the old invoices', { userId: 'cy' });
      try {
        await page.waitForSelector(card('approval', mail), { timeout: 30_000 });
        await page.waitForSelector(card('elicitation', onboarding), { timeout: 30_000 });
        await page.waitForSelector(card('client-tool', paint), { timeout: 30_000 });
        const approval = page.locator(card('approval', mail));
        await expect.poll(() => approval.textContent()).toContain('board@example.com');
        expect(await approval.textContent()).toMatch(/mailer for ada · step 1 · asked/);
        // What the user asked, for the reviewer's context.
        await expect
          .poll(() => approval.locator('.asked').textContent())
          .toBe('The user asked: Send the Q3 numbers to the board');
        // Cy's archiver has no authorizeDecision hook: the operator's buttons are disabled, and the card says why.
        await page.waitForSelector(card('approval', archive), { timeout: 30_000 });
        const cyCall = page.locator(card('approval', archive));
        expect(await cyCall.locator('button.approve').isDisabled()).toBe(true);
        expect(await cyCall.locator('button.deny').isDisabled()).toBe(true);
        expect(await cyCall.locator('.not-yours').textContent()).toBe(
          'Only cy decides this call: the archiver agent has no authorizeDecision hook to let others decide.',
        );
        // The mailer lets the operator decide (its hook checks them): their buttons are live.
        expect(await approval.locator('button.approve').isDisabled()).toBe(false);
        const question = page.locator(card('elicitation', onboarding));
        expect(await question.textContent()).toContain('Who is the new customer?');
        // Bob's client-side tool is his to answer: the operator sees it, with no form.
        expect(await page.locator(card('client-tool', paint)).textContent()).toContain('Only bob gives');
        await page.waitForFunction(() => document.querySelector('.summary')?.textContent?.includes('4 requests'));
        const shot =
          process.env.UPDATE_SCREENSHOTS === '1'
            ? SCREENSHOT
            : join(mkdtempSync(join(tmpdir(), 'inbox-')), 'inbox.png');
        await page.screenshot({ path: shot, fullPage: true });
        expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');

        await approval.locator('button.approve').click();
        await question.locator('input[name="name"]').fill('Ada Lovelace');
        await question.locator('input[name="age"]').fill('36');
        await question.locator('button.submit').click();
        await page.waitForSelector(card('approval', mail), { state: 'detached', timeout: 20_000 });
        await page.waitForSelector(card('elicitation', onboarding), { state: 'detached', timeout: 20_000 });

        const mailed = await mail.result();
        expect(mailed.text).toBe('The mailer is done: "sent to board@example.com"');
        expect(mailed.approvals).toMatchObject([{ approved: true, approver: OPERATOR }]);
        const onboarded = await onboarding.result();
        // What the MCP server got back from the page, as its tool returned it.
        const answer = JSON.parse(JSON.parse(onboarded.text.slice('Onboarded: '.length)) as string) as unknown;
        expect(answer).toEqual({ action: 'accept', content: { name: 'Ada Lovelace', age: 36 } });
      } finally {
        await paint.cancel();
        await archive.cancel();
      }
    });
  });

  it(
    'a run’s page streams it live and takes its approval in place; the chat box answers',
    { timeout: 150_000 },
    async () => {
      await withUi(async (page, _ui, harness) => {
        const mail = await harness.start('mailer', 'Send the Q3 numbers to the board', { userId: OPERATOR });
        await page.waitForSelector(card('approval', mail), { timeout: 30_000 });
        await page.locator(card('approval', mail)).locator('a').click();
        await page.waitForSelector('.tool[data-tool="send_email"][data-state="approval-requested"]');
        expect(await page.textContent('main')).toContain('Calling send_email.');
        // The page says what was asked and which step waits for what; the tool's boxes are labelled.
        expect(await page.textContent('.asked')).toBe('The user asked: Send the Q3 numbers to the board');
        await page.waitForSelector('.waits >> text=Step 1 waits for a decision on send_email.');
        const tool = page.locator('.tool[data-tool="send_email"]');
        expect(await tool.locator('.detail .box-label').textContent()).toBe('Input');
        // The Reason field the inbox card has: it goes to the run with the decision.
        await tool.locator('input.reason').fill('Board list checked');
        await tool.locator('button.approve').click();
        await page.waitForSelector('text=The mailer is done: "sent to board@example.com"', { timeout: 20_000 });
        await page.waitForSelector('.tool[data-tool="send_email"][data-state="output-available"]');
        expect(await tool.locator('.output .box-label').textContent()).toBe('Output');
        await page.waitForSelector('.run-status[data-status="completed"]', { timeout: 20_000 });
        expect((await mail.result()).approvals).toMatchObject([
          { approved: true, approver: OPERATOR, reason: 'Board list checked' },
        ]);
        expect(await page.locator('.waits').textContent()).toBe('');

        // Another user's run whose agent lets nobody else decide: its page disables the buttons and says why.
        const archive = await harness.start('archiver', 'Archive the old invoices', { userId: 'cy' });
        try {
          await page.goto(`${new URL(page.url()).origin}/#/runs/${encodeURIComponent(archive.id)}`);
          await page.waitForSelector('.tool[data-tool="archive_folder"][data-state="approval-requested"]', {
            timeout: 30_000,
          });
          const archiveTool = page.locator('.tool[data-tool="archive_folder"]');
          expect(await archiveTool.locator('button.approve').isDisabled()).toBe(true);
          expect(await archiveTool.locator('input.reason').isDisabled()).toBe(true);
          expect(await archiveTool.locator('.not-yours').textContent()).toContain('Only cy decides this call');
        } finally {
          await archive.cancel();
        }

        await page.click('#new-chat');
        expect(await page.locator('#chat-stop').isDisabled()).toBe(true);
        await page.fill('#chat-input', 'Hi there');
        await page.click('#chat-send');
        await page.waitForSelector('.message.assistant >> text=Hello from the scripted helper.', { timeout: 20_000 });
        expect(await page.locator('.message.user').textContent()).toContain('Hi there');
        // A turn that runs: the box is busy and Stop cancels it (the chat stays).
        await page.waitForSelector('#chat-stop:disabled');
        await page.fill('#chat-input', 'Take it slowly');
        await page.click('#chat-send');
        await page.waitForSelector('form.chat.busy #chat-stop:enabled', { timeout: 20_000 });
        expect(await page.textContent('.chat-status')).toBe('helper is working on it…');
        await page.click('#chat-stop');
        await page.waitForSelector('.message.assistant >> text=Stopped.', { timeout: 20_000 });
        await page.waitForSelector('form.chat:not(.busy) #chat-stop:disabled', { timeout: 10_000 });
        expect(await page.textContent('main')).not.toContain('Too late.');
        // The chat is a conversation of its turns: its page lists them and shows the newest.
        const chatId = decodeURIComponent(new URL(page.url()).hash.replace('#/chat/', ''));
        await page.goto(`${new URL(page.url()).origin}/#/conversations/${encodeURIComponent(chatId)}`);
        // Turns are labelled by their first words.
        await page.waitForSelector('.turn[data-status="COMPLETED"] >> text=“Hi there”', { timeout: 20_000 });
        await page.waitForSelector('.turn >> text=“Take it slowly”', { timeout: 20_000 });
        await page.waitForSelector('.live >> text=Stopped.', { timeout: 20_000 });
      });
    },
  );
});
