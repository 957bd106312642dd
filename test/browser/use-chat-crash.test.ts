// The real `useChat` page in headless Chromium while the worker writing its answer is SIGKILLed: the worker runs in
// its own process (test/fixtures/crash/worker.ts, whose `streamer` agent streams a long answer from a scripted model),
// the handler and the page stay up, a new worker takes the model call over, and the page ends with exactly the
// answer: the retried attempt's `reset-step` removed what the killed one had written, so no word shows twice.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { createAgentHandler } from '../../src/http/index.js';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { ask, bundleChatPage, messageTexts, newChatUrl, serveChatPage } from '../support/chat-page.js';
import { killChild, startChildWorker } from '../support/child-worker.js';
import { bundleWorkflows, createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash/worker.ts', import.meta.url));
/** What the `streamer` agent answers, 8 characters every 100 ms (about 6 s). */
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + '.';

let env: TestWorkflowEnvironment;
let browser: TestBrowser;
let appJs: string;
let bundlePath: string;
beforeAll(async () => {
  bundlePath = join(mkdtempSync(join(tmpdir(), 'durable-agent-bundle-')), 'workflows.js');
  const [code] = await Promise.all([
    bundleWorkflows(workflowsPath()).then((bundle) => bundle.code),
    bundleChatPage().then((js) => (appJs = js)),
    createTestEnv().then((created) => (env = created)),
    launchBrowser().then((launched) => (browser = launched)),
  ]);
  writeFileSync(bundlePath, code);
});
afterAll(async () => {
  await browser?.close();
  await env?.teardown();
});

describe('useChat in a real browser while the worker dies', () => {
  it('a worker SIGKILLed mid-answer: a new worker finishes it and the page shows exactly the answer, no word twice', async () => {
    const taskQueue = uniqueTaskQueue('web-crash');
    const start = () =>
      startChildWorker(WORKER, {
        TASK_QUEUE: taskQueue,
        SIDE_EFFECTS: join(mkdtempSync(join(tmpdir(), 'durable-agent-')), 'side-effects.log'),
        WORKFLOW_BUNDLE: bundlePath,
      });
    const client = new AgentClient({ client: env.client, taskQueue });
    const handler = createAgentHandler({
      client,
      agent: 'streamer',
      authenticate: () => ({ userId: 'alice' }),
      conversationOptions: () => ({ workflow: { workflowExecutionTimeout: '2 minutes' } }),
      onError: (error) => console.error(error),
    });
    const server = await serveChatPage(handler, appJs);
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => console.error('page error:', error));
    let worker: ChildProcess = await start();
    try {
      await page.goto(newChatUrl(server));
      await page.evaluate(recordAnswerTexts);
      await ask(page, 'go');
      // Kill once the page shows a good part of the answer, well before its end.
      await page.waitForFunction(() =>
        document.querySelector('.message[data-role="assistant"]')?.textContent?.includes('word15'),
      );
      const [shown] = await messageTexts(page, 'assistant');
      expect(shown).not.toContain('word59.');
      await killChild(worker);
      worker = await start();

      await page.waitForSelector('text=word59.', { timeout: 60_000 });
      await page.waitForSelector('#status:text("ready")');
      expect(await messageTexts(page, 'assistant')).toEqual([ANSWER]);
      expect(await messageTexts(page, 'user')).toEqual(['go']);
      // While it was written, the page only ever showed a beginning of the answer: the killed attempt's text was
      // removed when the retry started over (it shrank once), never followed by the retry's own copy.
      const seen = await page.evaluate(() => (window as unknown as { answerTexts: string[] }).answerTexts);
      expect(seen.filter((text) => !ANSWER.startsWith(text))).toEqual([]);
      expect(seen.some((text, i) => i > 0 && text.length < seen[i - 1]!.length)).toBe(true);
      // The answer was written twice by the model (the killed attempt and its retry), and shown once.
      const [turn] = await runsOf(client, taskQueue);
      const history = await env.client.workflow.getHandle(turn!).fetchHistory();
      const generates = new Set(
        (history.events ?? []).flatMap((event) =>
          event.activityTaskScheduledEventAttributes?.activityType?.name === 'generate' ? [String(event.eventId)] : [],
        ),
      );
      const attempts = (history.events ?? []).flatMap((event) => {
        const started = event.activityTaskStartedEventAttributes;
        return started && generates.has(String(started.scheduledEventId)) ? [started.attempt] : [];
      });
      expect(attempts).toEqual([2]);
    } finally {
      await page.close();
      await server.close();
      await killChild(worker);
    }
  }, 150_000);
});

/** In the page: records every text the assistant message shows, as it changes (`window.answerTexts`). */
function recordAnswerTexts(): void {
  const texts: string[] = [];
  (window as unknown as { answerTexts: string[] }).answerTexts = texts;
  const record = () => {
    const spans = document.querySelectorAll('.message[data-role="assistant"] .text');
    const text = Array.from(spans, (span) => span.textContent ?? '').join('');
    if (text !== '' && text !== texts[texts.length - 1]) texts.push(text);
  };
  new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
}

/** The workflow ids of the chat turns' runs on `taskQueue`. */
async function runsOf(client: AgentClient, taskQueue: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const run of client.list(`TaskQueue = '${taskQueue}' AND WorkflowType = 'agentRun'`)) {
    ids.push(run.workflowId);
  }
  return ids;
}
