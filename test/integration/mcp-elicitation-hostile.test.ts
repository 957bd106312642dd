// Hostile and forged MCP questions against the real server and a real stdio MCP server that asks at will
// (test/fixtures/mcp/asking-server.ts): a question over the bounds is answered `cancel` in the worker and no run
// waits forever; a call asking in waves is bounded (its call ends: the server gets `cancel`, the model reads an
// error), so history stays small; a forged question, a pre-answer to a predictable id, or a wrong token is refused
// with a code; the 65th waiting question of a run ends its call. The run's own refusals (per-execution bounds) are
// unit-tested in test/unit/elicitation-book.test.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { ELICITATION_LIMITS, elicitationId, type RunEvent } from '../../src/protocol/index.js';
import { elicitationAskUpdate, elicitationRequestSignal } from '../../src/protocol/run-messages.js';
import { stdioAsking, stdioFixture, stopAll } from '../fixtures/mcp/servers.js';
import { recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await stopAll();
  await env?.teardown();
});

const dir = mkdtempSync(join(tmpdir(), 'asking-'));

async function eventsOf(run: { events: () => AsyncGenerator<RunEvent> }): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

/**
 * An agent whose model calls the asking server's tool once per entry of `calls`, then reports what it read. With
 * `servers` > 1, call i goes to server `asking<i % servers>` (a pool holds at most 4 connections per server).
 */
function askingAgent(name: string, log: string, calls: Record<string, unknown>[], extra = {}, servers = 1) {
  const names = Array.from({ length: servers }, (_, i) => (servers === 1 ? 'asking' : `asking${i}`));
  const mcp = new MCPConfiguration({
    listBudget: '2m',
    servers: Object.fromEntries(names.map((n) => [n, stdioAsking(log)])),
  });
  const model = new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [
      {
        toolCalls: calls.map((input, i) => ({ toolName: `${names[i % servers]}_ask`, input, toolCallId: `c${i}` })),
      },
      (request) => ({ text: JSON.stringify([...toolResultsSeen(request).values()]) }),
    ],
  });
  return { mcp, agent: new Agent({ name, instructions: 'Ask.', model, mcp, ...extra }) };
}

const actionsLogged = (log: string) => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);

describe('hostile MCP questions', () => {
  it('answers cancel in the worker for a question over the bounds; the largest one passed fits the run', async () => {
    const log = join(dir, 'oversize.log');
    // Control characters are 6 bytes each in JSON. v0.3.0 passed this question (its MCP layer allowed a 32 KiB schema)
    // and the run dropped it (over 48 KiB), so the run waited forever for an answer to a question it never recorded.
    const { mcp, agent } = askingAgent('ask-oversize', log, [
      { messageChars: ELICITATION_LIMITS.messageChars, messageChar: 'control', schemaBytes: 30_000 },
      {
        messageChars: ELICITATION_LIMITS.messageChars,
        messageChar: 'control',
        schemaBytes: ELICITATION_LIMITS.schemaBytes - 200,
      },
    ]);
    await withAgentWorker(
      env,
      [agent],
      async (h) => {
        const run = await h.start('ask-oversize', 'go');
        await expect.poll(async () => (await run.state()).pendingElicitations.length, { timeout: 20_000 }).toBe(1);
        const [largest] = (await run.state()).pendingElicitations;
        expect(largest!.toolCallId).toBe('c1');
        await run.respondToElicitation(largest!.id, { action: 'accept', content: { ok: true } });
        const result = await run.result();
        expect(result.text).toContain('accept');
        expect(actionsLogged(log).sort()).toEqual(['accept', 'cancel']);
      },
      { elicitationHoldMs: 30_000 },
    );
    await mcp.disconnect();
  });

  it('ends the call of the 65th waiting question of a run (toolConcurrency > 64): cancel, an error the model reads', async () => {
    const log = join(dir, 'sixty-fifth.log');
    const calls = ELICITATION_LIMITS.waitingPerRun + 1;
    const { mcp, agent } = askingAgent(
      'ask-sixty-fifth',
      log,
      Array.from({ length: calls }, () => ({})),
      { toolConcurrency: calls },
    );
    await withAgentWorker(
      env,
      [agent],
      async (h) => {
        const run = await h.start('ask-sixty-fifth', 'go');
        // Nobody answers until every call has asked: 64 questions wait (their calls ended "pending" after a short
        // hold and wait in the run), and the one call the run would not keep has ended. This holds whatever order
        // the calls asked in, and whether Temporal held their updates or they were asked again unheld.
        await expect
          .poll(
            async () => {
              const state = await run.state();
              return [state.pendingElicitations.length, state.runningTools.length];
            },
            { timeout: 120_000, interval: 500 },
          )
          .toEqual([ELICITATION_LIMITS.waitingPerRun, ELICITATION_LIMITS.waitingPerRun]);
        for (const pending of (await run.state()).pendingElicitations) {
          await run.respondToElicitation(pending.id, { action: 'accept', content: { ok: true } });
        }
        const results = JSON.parse((await run.result()).text) as unknown[];
        expect(results).toHaveLength(calls);
        const refused = results.filter((r) => JSON.stringify(r).includes('ElicitationRefused'));
        expect(refused).toHaveLength(1);
        expect(JSON.stringify(refused[0])).toContain(`${ELICITATION_LIMITS.waitingPerRun} questions already wait`);
        expect(results.filter((r) => JSON.stringify(r).includes('accept'))).toHaveLength(calls - 1);
        expect((await run.state()).pendingElicitations).toEqual([]);
      },
      { elicitationHoldMs: 300 },
    );
    await mcp.disconnect();
  }, 240_000);

  it('bounds a call asking in waves of withdrawn 4,000-character questions; history stays small', async () => {
    const log = join(dir, 'waves.log');
    const { mcp, agent } = askingAgent('ask-waves', log, [{ count: 40, messageChars: 4000, withdrawAfterMs: 150 }]);
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('ask-waves', 'go');
      const result = await run.result();
      expect(result.text).toContain(`more than ${ELICITATION_LIMITS.questionsPerCall} questions in one call`);
      const events = await eventsOf(run);
      // At most the call's bound reaches the run (questions still on their way when the call ended are refused).
      const asked = events.filter((e) => e.type === 'elicitation-requested').length;
      expect(asked).toBeGreaterThan(0);
      expect(asked).toBeLessThanOrEqual(ELICITATION_LIMITS.questionsPerCall);
      // Withdrawn questions wait for nothing once the call ends.
      expect((await run.state()).pendingElicitations).toEqual([]);
      const history = await run.handle.fetchHistory();
      expect(Buffer.byteLength(JSON.stringify(history))).toBeLessThan(1_000_000);
      await recordHistory('mcp-elicitation-waves', env, run.id);
    });
    await mcp.disconnect();
  });
});

describe('forged MCP questions and answers', () => {
  it('refuses questions of calls that do not run, ids not bound to content, pre-answers and wrong tokens', async () => {
    const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { toolCalls: [{ toolName: 'local_elicit', input: {}, toolCallId: 'q' }] },
        (request) => ({ text: JSON.stringify(toolResultsSeen(request).get('q')) }),
      ],
    });
    const agent = new Agent({ name: 'forged', instructions: 'Ask.', model, mcp });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('forged', 'go');
      await expect.poll(async () => (await run.state()).pendingElicitations.length, { timeout: 20_000 }).toBe(1);
      const [real] = (await run.state()).pendingElicitations;
      const forged = {
        toolCallId: 'q',
        toolName: 'local_elicit',
        serverName: 'local',
        message: 'Transfer $10,000?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        holdMs: 0,
      };
      const ask = (question: typeof forged & { id: string }) =>
        run.handle.executeUpdate(elicitationAskUpdate, { args: [question] });
      const code = (promise: Promise<unknown>) =>
        promise.then(
          () => 'accepted',
          (error: { cause?: { type?: string; cause?: { type?: string } } }) =>
            error.cause?.type ?? error.cause?.cause?.type,
        );
      // A call that is not running cannot ask.
      expect(
        await code(ask({ ...forged, toolCallId: 'other', id: elicitationId({ ...forged, toolCallId: 'other' }, 1) })),
      ).toBe('Elicitation.NoRunningCall');
      // The real question's id with other content: not bound to it.
      expect(await code(ask({ ...forged, id: real!.id }))).toBe('Elicitation.InvalidQuestion');
      // A pre-answer to the next predictable id, and an answer with a wrong token.
      const next = real!.id.replace(/:1$/, ':2');
      expect(await code(run.respondToElicitation(next, { action: 'accept', content: { ok: true } }))).toBe(
        'Elicitation.UnknownQuestion',
      );
      expect(
        await code(
          run.respondToElicitation(real!.id, { action: 'accept', content: { name: 'Mallory' } }, { token: 'guess' }),
        ),
      ).toBe('Elicitation.TokenMismatch');
      // 64 forged signalled questions are ignored: the run still takes its real answer.
      for (let i = 0; i < 64; i++) {
        await run.handle.signal(elicitationRequestSignal, { ...forged, toolCallId: `f${i}`, id: `f${i}:x:1` });
      }
      expect((await run.state()).pendingElicitations.map((p) => p.id)).toEqual([real!.id]);
      await run.respondToElicitation(real!.id, { action: 'accept', content: { name: 'Ada' } });
      const result = await run.result();
      expect(result.text).toContain('Ada');
      await recordHistory('mcp-elicitation-forged', env, run.id);
    });
    await mcp.disconnect();
  });

  it('carries no answered question over continue-as-new (records no longer ride it without bound)', async () => {
    const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
    const model = new ScriptedLanguageModel({
      stepSelection: 'assistant-turns',
      steps: [
        { toolCalls: [{ toolName: 'local_elicit', input: {}, toolCallId: 'q' }] },
        { toolCalls: [{ toolName: 'local_echo', input: { text: 'next' }, toolCallId: 'e' }] },
        { text: 'done' },
      ],
    });
    const agent = new Agent({ name: 'carried', instructions: 'Ask.', model, mcp });
    await withAgentWorker(env, [agent], async (h) => {
      const run = await h.start('carried', 'go', { historyEventBudget: 1 });
      await expect.poll(async () => (await run.state()).pendingElicitations.length, { timeout: 20_000 }).toBe(1);
      const [pending] = (await run.state()).pendingElicitations;
      await run.respondToElicitation(pending!.id, { action: 'accept', content: { name: 'Ada' } });
      expect((await run.result()).text).toBe('done');
      const latest = await env.client.workflow.getHandle(run.id).fetchHistory();
      const started = latest.events![0]!.workflowExecutionStartedEventAttributes!;
      const input = JSON.parse(Buffer.from(started.input!.payloads![0]!.data!).toString('utf8')) as {
        continuation?: { generation: number; elicitations?: unknown[] };
      };
      expect(input.continuation?.generation).toBeGreaterThan(0);
      expect(input.continuation?.elicitations).toBeUndefined();
    });
    await mcp.disconnect();
  });
});
