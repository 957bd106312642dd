// The inbox page while the workers of its runs are down, in headless Chromium against the suite's dev server: runs
// that wait for approval lose their worker, and an inbox tab stays open on them for 20 s. Temporal holds each state
// query for a worker until the caller's deadline, so a page that refreshed on a timer and a listing that never
// cancelled its queries piled them up (issue 30: ~340 in flight). Counted at the Temporal client's connection (a gRPC
// interceptor) and at the page (its requests to /api/inbox): the queries in flight stay within one listing's bound,
// one listing runs at a time, refreshes back off, and the page says the workers are down.
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import type { AgentRun } from '../../src/client/agent-run.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { startInboxUi } from '../../src/ui/ui-server.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { createTestEnv, testServer } from '../support/temporal.js';

/** Runs left waiting: more than one listing reads at once (8), so a listing that asked every run would show. */
const RUNS = 12;
/** How long the tab stays open with the workers down. */
const WATCH_MS = 20_000;

let env: TestWorkflowEnvironment;
let browser: TestBrowser;
beforeAll(async () => {
  [env, browser] = await Promise.all([createTestEnv(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await env?.teardown();
});

const archive = createTool({
  name: 'archive',
  description: 'Archives a folder.',
  parameters: z.object({ folder: z.string() }),
  needsApproval: true,
  execute: async ({ folder }) => `archived ${folder}`,
});

function archiver(): Agent {
  return new Agent({
    name: 'archiver',
    instructions: '',
    model: new ScriptedLanguageModel({
      steps: Array.from({ length: RUNS }, () => ({
        text: 'Archiving.',
        toolCalls: [{ toolName: 'archive', input: { folder: 'old' } }],
      })),
    }),
    tools: [archive],
  });
}

/** Calls of one gRPC method in flight on a connection: now, at most, and started in all. */
class InFlight {
  now = 0;
  max = 0;
  started = 0;
  constructor(readonly method: string) {}
  /** A gRPC client interceptor that counts this method's calls from their start to their status. */
  interceptor(): Interceptor {
    return (options, nextCall) => {
      if (!options.method_definition.path.endsWith(`/${this.method}`)) return new InterceptingCall(nextCall(options));
      return new InterceptingCall(nextCall(options), {
        start: (metadata, listener, next) => {
          this.now++;
          this.started++;
          this.max = Math.max(this.max, this.now);
          next(metadata, {
            onReceiveStatus: (status, nextStatus) => {
              this.now--;
              nextStatus(status);
            },
          });
        },
      });
    };
  }
}

describe('the inbox page with its workers down', () => {
  it('keeps its queries bounded, never overlaps refreshes, backs off and says so', { timeout: 120_000 }, async () => {
    const runs: AgentRun[] = [];
    const taskQueue = await withAgentWorker(env, [archiver()], async (harness) => {
      for (let i = 0; i < RUNS; i++)
        runs.push(await harness.start('archiver', `Archive folder ${i}`, { userId: 'ada' }));
      for (const run of runs) {
        await expect.poll(async () => (await run.state()).pendingApprovals.length, { timeout: 30_000 }).toBe(1);
      }
      return harness.taskQueue;
    });
    // The worker has stopped: every state query now waits for nobody.
    const queries = new InFlight('QueryWorkflow');
    const listings = new InFlight('ListWorkflowExecutions');
    const { address, namespace } = testServer();
    const connection = await Connection.connect({
      address,
      interceptors: [
        makeGrpcRetryInterceptor(defaultGrpcRetryOptions()),
        queries.interceptor(),
        listings.interceptor(),
      ],
    });
    const client = new AgentClient({ client: new Client({ connection, namespace }), taskQueue });
    const ui = await startInboxUi({ client, user: 'operator', taskQueue });
    const page = await browser.context.newPage();
    const pageListings = { now: 0, max: 0, started: 0 };
    const isListing = (url: string) => new URL(url).pathname === '/api/inbox';
    page.on('request', (request) => {
      if (!isListing(request.url())) return;
      pageListings.now++;
      pageListings.started++;
      pageListings.max = Math.max(pageListings.max, pageListings.now);
    });
    const ended = (request: { url(): string }) => {
      if (isListing(request.url())) pageListings.now--;
    };
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
    try {
      await page.goto(ui.url);
      const samples: number[] = [];
      for (const start = Date.now(); Date.now() - start < WATCH_MS; ) {
        samples.push(queries.now);
        await delay(250);
      }
      await page.waitForSelector('.health .workers-down', { timeout: 10_000 });
      expect(await page.textContent('.health')).toContain(
        `Workers are down: no worker answered for runs on task queue ${taskQueue}`,
      );
      // A listing asks at most its concurrency (8) before it counts the workers as down; it cancels what it asked.
      expect(queries.max).toBeLessThanOrEqual(8);
      expect(Math.max(...samples)).toBeLessThanOrEqual(8);
      // Backing off: 2 s, then 4, 8, 16 s between listings that each wait ~5 s for an answer.
      expect(pageListings.max).toBe(1);
      expect(pageListings.started).toBeLessThanOrEqual(5);
      expect(listings.max).toBeLessThanOrEqual(1);
      expect(queries.started).toBeLessThanOrEqual(8 * pageListings.started);
      // The page closed: nothing of its listings stays in flight at Temporal.
      await page.close();
      await expect.poll(() => queries.now, { timeout: 10_000 }).toBe(0);
    } finally {
      await page.close().catch(() => undefined);
      await ui.close();
      await connection.close();
      await Promise.all(runs.map((run) => run.handle.terminate('test cleanup').catch(() => undefined)));
    }
  });
});
