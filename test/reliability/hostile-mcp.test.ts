// MCP servers are untrusted code: a hostile stdio server (test/fixtures/mcp/hostile-server.ts), one mode per way
// to freeze, bloat or confuse a worker, against a real worker on the real dev server. Each test failed before
// its fix (ReDoS ones by timing out: the worker's event loop was stuck in a backtracking regex).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { McpRuntime } from '../../src/runtime/mcp-runtime.js';
import { offeredToolName } from '../../src/mcp/offered-name.js';
import { signClaims, verifySignedClaims } from '../../src/mcp/signed-claims.js';
import { getGlobalLogger, setGlobalLogger } from '../../src/logger.js';
import { ScriptedLanguageModel, type ScriptedRequest, type ScriptedStep } from '../../src/models/scripted-model.js';
import { MCP_LIST_BUDGET_MS, type RunEvent } from '../../src/protocol/index.js';
import { stdioHostile, stopAll, wrappedHostile } from '../fixtures/mcp/servers.js';
import { recordHistory, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';
import { historyJson, recordedActivities } from '../support/activity-history.js';
import type { History } from '../support/history.js';
import { scanRunForSecrets } from '../support/secret-scan.js';
import { createTestEnv } from '../support/temporal.js';
import { captureLogs, messagesAt } from '../unit/support/log-capture.js';

const logs = captureLogs();

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await stopAll();
  await env?.teardown();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function hostileAgent(name: string, steps: ScriptedStep[], mcp: MCPConfiguration) {
  const model = new ScriptedLanguageModel({ stepSelection: 'assistant-turns', steps });
  return { model, agent: new Agent({ name, instructions: 'Use the tools.', model, mcp }) };
}

async function eventsOf(run: { events: () => AsyncGenerator<RunEvent> }): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

/** Milliseconds from the run's start to the first `generate` activity's scheduling, as its history recorded them. */
function firstGenerateDelayMs(history: History): number {
  const events = historyJson(history).events as Array<{
    eventTime?: string;
    eventType: string;
    activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
  }>;
  const started = events.find((e) => e.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED');
  const generate = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'generate');
  if (!started?.eventTime || !generate?.eventTime) throw new Error('no start or no generate in the history');
  return Date.parse(generate.eventTime) - Date.parse(started.eventTime);
}

/** Every activity the history scheduled ended (completed, failed, timed out or cancelled) before the run closed. */
function settledActivities(history: History): { scheduled: number; unsettled: string[] } {
  const events = historyJson(history).events as unknown as Array<Record<string, unknown>>;
  const open = new Map<string, string>();
  for (const event of events) {
    const id = String(event.eventId);
    const scheduled = event.activityTaskScheduledEventAttributes as { activityType?: { name?: string } } | undefined;
    if (scheduled) open.set(id, scheduled.activityType?.name ?? '');
    for (const key of [
      'activityTaskCompletedEventAttributes',
      'activityTaskFailedEventAttributes',
      'activityTaskTimedOutEventAttributes',
      'activityTaskCanceledEventAttributes',
    ]) {
      const done = event[key] as { scheduledEventId?: string } | undefined;
      if (done) open.delete(String(done.scheduledEventId));
    }
  }
  return {
    scheduled: events.filter((e) => e.activityTaskScheduledEventAttributes).length,
    unsettled: [...open.values()],
  };
}

describe('a hostile MCP server', () => {
  it('cannot stall the worker with a backtracking pattern in an output or an input schema', async () => {
    // 40 characters: 2^40 backtracking steps on JavaScript's engine (hours); RE2 answers at once.
    const mcp = new MCPConfiguration({ servers: { h: stdioHostile(['redos']) } });
    const { model, agent } = hostileAgent(
      'hostile-redos',
      [
        {
          toolCalls: [
            { toolName: 'h_match_output', input: {}, toolCallId: 'out' },
            { toolName: 'h_match_input', input: { s: `${'a'.repeat(40)}!` }, toolCallId: 'in' },
            { toolName: 'h_match_input', input: { s: 'aaaa' }, toolCallId: 'ok' },
          ],
        },
        { text: 'done' },
      ],
      mcp,
    );
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const started = Date.now();
        const run = await h.start('hostile-redos', 'go');
        expect((await run.result()).text).toBe('done');
        expect(Date.now() - started).toBeLessThan(30_000);
        const seen = toolResultsSeen(model.requests[1]);
        // The output does not match its schema: the model is told so, nothing hangs.
        expect(JSON.stringify(seen.get('out'))).toMatch(/output schema|does not match/i);
        // The model's argument does not match: refused before the call, in linear time.
        expect(JSON.stringify(seen.get('in'))).toMatch(/invalid|pattern|match/i);
        expect(JSON.stringify(seen.get('ok'))).toContain('match_input');
      });
    } finally {
      await mcp.disconnect();
    }
  }, 60_000);

  it('loses only the tool whose schema it cannot compile, with the reason, never the whole server', async () => {
    const mcp = new MCPConfiguration({ servers: { h: stdioHostile(['invalid-u']) } });
    const { model, agent } = hostileAgent(
      'hostile-invalid-u',
      [
        {
          toolCalls: [
            { toolName: 'h_phone', input: { number: '555-1234' }, toolCallId: 'good' },
            { toolName: 'h_phone', input: { number: '5551234' }, toolCallId: 'bad' },
          ],
        },
        { text: 'done' },
      ],
      mcp,
    );
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const run = await h.start('hostile-invalid-u', 'go');
        expect((await run.result()).text).toBe('done');
        const names = model.requests[0]!.toolNames;
        expect(names).toEqual(expect.arrayContaining(['h_echo', 'h_phone']));
        expect(names).not.toContain('h_lookahead');
        const seen = toolResultsSeen(model.requests[1]);
        expect(JSON.stringify(seen.get('good'))).toContain('555-1234');
        expect(JSON.stringify(seen.get('bad'))).toMatch(/must match pattern/);
        const listed = (await eventsOf(run)).find((e) => e.type === 'mcp-tools-listed');
        expect(listed).toMatchObject({ server: 'h', skipped: 1 });
      });
    } finally {
      await mcp.disconnect();
    }
  }, 60_000);

  it('lists 30,000 tools as 256 usable ones, a bounded summary of the rest, and one warning', async () => {
    // 30,000 entries in one page (about 6 MB, under the 8 MiB message bound). Before: every entry was kept and
    // named in `skipped`, the listing result passed Temporal's 2 MB payload limit and the server's tools were lost.
    // A listing this large takes seconds on a busy machine: the budget is lifted, this test is about its bounds.
    const mcp = new MCPConfiguration({
      servers: { h: stdioHostile(['huge'], { HOSTILE_COUNT: '30000' }) },
      listBudget: '2m',
    });
    const { model, agent } = hostileAgent(
      'hostile-huge',
      [{ toolCalls: [{ toolName: 'h_t7', input: { x: 'hi' }, toolCallId: 't7' }] }, { text: 'done' }],
      mcp,
    );
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const run = await h.start('hostile-huge', 'go');
        expect((await run.result()).text).toBe('done');
        expect(model.requests[0]!.toolNames.filter((name) => name.startsWith('h_'))).toHaveLength(256);
        const listed = (await eventsOf(run)).find((e) => e.type === 'mcp-tools-listed');
        expect(listed).toMatchObject({ server: 'h', tools: 256, skipped: 1 });
        const history = await run.handle.fetchHistory();
        const resultBytes = (history.events ?? []).map(
          (e) => e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data?.byteLength ?? 0,
        );
        expect(Math.max(...resultBytes)).toBeLessThan(512 * 1024 + 64 * 1024);
        const warnings = messagesAt(logs, 'warn').filter((m) => m.includes("MCP server 'h'"));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/29745 tools skipped, 256 kept/);
      });
    } finally {
      await mcp.disconnect();
    }
  }, 120_000);

  it('keeps a long-lived connection’s memory bounded over hundreds of listings with new schemas each time', async () => {
    // 20 typed tools whose schemas differ on every listing. Before: the SDK's Ajv compiled and kept every
    // listing's output schemas for the life of the connection (+19.7 MB over these 300; now about 1.5 MB).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const mcp = new MCPConfiguration({ servers: { h: stdioHostile(['typed'], { HOSTILE_COUNT: '20' }) } });
    const listAndCall = async (): Promise<void> => {
      const listing = await mcp.listServerTools('h');
      expect(listing.tools).toHaveLength(21);
      // A result to check: its tool's output schema is compiled (and must not be kept without bound either).
      await mcp.callServerTool('h', 't3', { x: 'a' });
    };
    try {
      for (let i = 0; i < 20; i++) await listAndCall();
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 300; i++) await listAndCall();
      gc();
      const grown = process.memoryUsage().heapUsed - before;
      expect(grown).toBeLessThan(8 * 1024 * 1024);
    } finally {
      await mcp.disconnect();
    }
  }, 300_000);

  it('remembers a hung server across runs (circuit breaker, shown in state()), so it stops taxing every run', async () => {
    // A server that never answers `initialize`. Before: every run paid MCP_LIST_ATTEMPTS connect timeouts before
    // its first model call, because the pool's short back-off expired while each connect attempt waited. Since the
    // listing budget a run waits at most MCP_LIST_BUDGET_MS; the breaker makes the next run's listing fail at once.
    // Short connect timeouts, and a first run that lasts until its late listing has failed every attempt.
    const runtime = new McpRuntime({ connectTimeoutMs: 5_000 });
    const mcp = new MCPConfiguration({ servers: { h: stdioHostile(['hang-init']), ok: stdioHostile([]) } });
    // The first run's model call is held 25 s (by its prompt); the second's answers at once.
    const answer = (request: ScriptedRequest) =>
      JSON.stringify(request.prompt).includes('slowly') ? { text: 'done', delayMs: 25_000 } : { text: 'done' };
    const { agent } = hostileAgent('hostile-hung', [answer, { text: 'done' }], mcp);
    try {
      await withAgentWorker(
        env,
        [agent],
        async (h) => {
          const first = await h.start('hostile-hung', 'go slowly');
          expect((await first.result()).text).toBe('done');
          const failedLate = (await eventsOf(first)).find((e) => e.type === 'mcp-server-failed');
          expect(failedLate).toMatchObject({
            server: 'h',
            late: true,
            message: expect.stringMatching(/circuit breaker/),
          });
          const second = await h.start('hostile-hung', 'go');
          expect((await second.result()).text).toBe('done');
          // Before: three more 20 s connect timeouts (52 s measured); now the breaker refuses each attempt at once
          // (about 3 s with Temporal's retry intervals), so the first model call does not wait for the budget.
          expect(firstGenerateDelayMs(await second.handle.fetchHistory())).toBeLessThan(MCP_LIST_BUDGET_MS);
          const failedInTime = (await eventsOf(second)).find((e) => e.type === 'mcp-server-failed');
          expect(failedInTime).toMatchObject({ server: 'h', message: expect.stringMatching(/circuit breaker/) });
          expect(failedInTime).not.toHaveProperty('late');
          const servers = (await second.state()).mcpServers ?? [];
          expect(servers).toContainEqual({ server: 'ok', status: 'listed', tools: 1, skipped: 0 });
          expect(servers).toContainEqual(
            expect.objectContaining({
              server: 'h',
              status: 'failed',
              message: expect.stringMatching(/circuit breaker/),
            }),
          );
        },
        { mcp: runtime },
      );
    } finally {
      await runtime.close();
      await mcp.disconnect();
    }
  }, 120_000);

  it('never holds the first model call past the listing budget for a hung server, and leaves no listing running', async () => {
    // Before: the first `generate` waited for every server's `mcpListTools` (three 20 s connect timeouts of `h`).
    const mcp = new MCPConfiguration({ servers: { h: stdioHostile(['hang-init']), ok: stdioHostile([]) } });
    const { model, agent } = hostileAgent('hostile-budget', [{ text: 'done' }], mcp);
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const started = Date.now();
        const run = await h.start('hostile-budget', 'go');
        expect((await run.result()).text).toBe('done');
        const elapsed = Date.now() - started;
        const history = await run.handle.fetchHistory();
        const delay = firstGenerateDelayMs(history);
        console.info(`first generate scheduled ${delay} ms after the run started; run took ${elapsed} ms`);
        // The budget is a timer: the model call waited for it, and not much longer.
        expect(delay).toBeGreaterThanOrEqual(MCP_LIST_BUDGET_MS - 100);
        expect(delay).toBeLessThan(MCP_LIST_BUDGET_MS + 3_000);
        // Step 1 is offered the healthy server's tools, recorded as its `generate` input.
        expect(model.requests[0]!.toolNames).toContain(offeredToolName('ok', 'echo'));
        expect(model.requests[0]!.toolNames.some((name) => name.startsWith('h_'))).toBe(false);
        const generate = recordedActivities(history).find((a) => a.type === 'generate');
        expect((generate?.input as { mcp?: Array<{ server: string }> }).mcp?.map((ref) => ref.server)).toEqual(['ok']);
        // The hung listing was cancelled before the run ended and its activity acknowledged it: nothing dangles.
        expect(settledActivities(history).unsettled).toEqual([]);
        const events = await eventsOf(run);
        const failed = events.findIndex((e) => e.type === 'mcp-server-failed');
        expect(events[failed]).toMatchObject({ server: 'h', reason: 'cancelled', late: true });
        expect(failed).toBeLessThan(events.findIndex((e) => e.type === 'finished'));
        expect(elapsed).toBeLessThan(MCP_LIST_BUDGET_MS + 15_000);
        await recordHistory('mcp-list-budget-hung', env, run.id);
      });
    } finally {
      await mcp.disconnect();
    }
  }, 90_000);

  it('offers a late server’s tools from the model call after its listing arrives', async () => {
    // `slow` answers its listing after 8 s: over the 5 s budget. Step 1 (held 15 s by the model) runs without it;
    // its listing is recorded while step 1 runs, and step 2 is offered and calls its tool.
    const mcp = new MCPConfiguration({
      servers: { slow: stdioHostile(['slow'], { HOSTILE_DELAY_MS: '8000' }), ok: stdioHostile([]) },
    });
    const okEcho = offeredToolName('ok', 'echo');
    const slowEcho = offeredToolName('slow', 'echo');
    const { model, agent } = hostileAgent(
      'hostile-late',
      [
        { delayMs: 15_000, toolCalls: [{ toolName: okEcho, input: { text: 'one' }, toolCallId: 'a' }] },
        { toolCalls: [{ toolName: slowEcho, input: { text: 'two' }, toolCallId: 'b' }] },
        { text: 'done' },
      ],
      mcp,
    );
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const run = await h.start('hostile-late', 'go');
        // Once the budget is spent (the healthy server is recorded), the state says the slow one is still listing.
        let seen: Awaited<ReturnType<typeof run.state>> | undefined;
        await expect
          .poll(
            async () => {
              seen = await run.state();
              return seen.mcpServers?.some((s) => s.server === 'ok') ?? false;
            },
            { timeout: 15_000, interval: 200 },
          )
          .toBe(true);
        expect(seen?.step).toBe(0);
        expect(seen?.mcpServers).toContainEqual({ server: 'slow', status: 'listing' });
        expect((await run.result()).text).toBe('done');
        expect(model.requests[0]!.toolNames).toContain(okEcho);
        expect(model.requests[0]!.toolNames).not.toContain(slowEcho);
        expect(model.requests[1]!.toolNames).toContain(slowEcho);
        expect(JSON.stringify(toolResultsSeen(model.requests[2]).get('b'))).toContain('echo: {\\"text\\":\\"two\\"}');
        const events = await eventsOf(run);
        const late = events.findIndex((e) => e.type === 'mcp-tools-listed' && e.server === 'slow');
        expect(events[late]).toMatchObject({ late: true, tools: 1 });
        const stepStarted = (step: number) => events.findIndex((e) => e.type === 'step-started' && e.step === step);
        expect(late).toBeGreaterThan(stepStarted(1));
        expect(late).toBeLessThan(stepStarted(2));
        const history = await run.handle.fetchHistory();
        const inputs = recordedActivities(history).filter((a) => a.type === 'generate');
        const servers = (i: number) =>
          (inputs[i]?.input as { mcp?: Array<{ server: string }> }).mcp?.map((r) => r.server);
        expect(servers(0)).toEqual(['ok']);
        expect(servers(1)?.sort()).toEqual(['ok', 'slow']);
        expect(settledActivities(history).unsettled).toEqual([]);
        expect((await run.state()).mcpServers).toContainEqual({
          server: 'slow',
          status: 'listed',
          tools: 1,
          skipped: 0,
        });
        await recordHistory('mcp-list-budget-late', env, run.id);
      });
    } finally {
      await mcp.disconnect();
    }
  }, 90_000);

  it('cancels a late listing, and waits for it, when the run itself is cancelled', async () => {
    const mcp = new MCPConfiguration({ servers: { h: stdioHostile(['hang-init']), ok: stdioHostile([]) } });
    const { agent } = hostileAgent('hostile-late-cancelled', [{ text: 'never', delayMs: 60_000 }], mcp);
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const run = await h.start('hostile-late-cancelled', 'go');
        await expect
          .poll(async () => (await run.state()).mcpServers ?? [], { timeout: 15_000, interval: 200 })
          .toContainEqual({ server: 'h', status: 'listing' });
        await run.cancel();
        await expect(run.result()).rejects.toThrow();
        expect((await run.handle.describe()).status.name).toBe('CANCELLED');
        expect(settledActivities(await run.handle.fetchHistory()).unsettled).toEqual([]);
        const events = await eventsOf(run);
        const failed = events.findIndex((e) => e.type === 'mcp-server-failed');
        expect(events[failed]).toMatchObject({ server: 'h', reason: 'cancelled', late: true });
        expect(events.at(-1)?.type).toBe('cancelled');
        expect(failed).toBeLessThan(events.length - 1);
      });
    } finally {
      await mcp.disconnect();
    }
  }, 90_000);

  it('cancels a listing still late at continue-as-new after one more budget, so none runs across it', async () => {
    // `slow` answers its listing after 60 s; the run continues as new after step 1 (an event budget of 1).
    const mcp = new MCPConfiguration({
      servers: { slow: stdioHostile(['slow'], { HOSTILE_DELAY_MS: '60000' }), ok: stdioHostile([]) },
    });
    const okEcho = offeredToolName('ok', 'echo');
    const { model, agent } = hostileAgent(
      'hostile-late-continued',
      [{ toolCalls: [{ toolName: okEcho, input: { text: 'one' }, toolCallId: 'a' }] }, { text: 'done' }],
      mcp,
    );
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const run = await h.start('hostile-late-continued', 'go', { historyEventBudget: 1 });
        expect((await run.result()).text).toBe('done');
        const events = await eventsOf(run);
        const cancelled = events.findIndex((e) => e.type === 'mcp-server-failed' && e.server === 'slow');
        expect(events[cancelled]).toMatchObject({ reason: 'cancelled', late: true });
        expect(cancelled).toBeLessThan(events.findIndex((e) => e.type === 'continued-as-new'));
        // The first execution waited for its activities (the cancelled listing included) before it continued.
        const firstRunId = (await run.handle.describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined;
        expect(firstRunId).toBeTruthy();
        const first = await env.client.workflow.getHandle(run.id, firstRunId).fetchHistory();
        const { unsettled, scheduled } = settledActivities(first);
        expect(scheduled).toBeGreaterThan(0);
        expect(unsettled).toEqual([]);
        const timeOf = (type: string) => {
          const found = (historyJson(first).events as Array<{ eventType: string; eventTime?: string }>).find(
            (e) => e.eventType === type,
          );
          return Date.parse(found?.eventTime ?? '');
        };
        console.info(
          `late listing cancelled ${timeOf('EVENT_TYPE_ACTIVITY_TASK_CANCELED') - timeOf('EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED')} ms ` +
            `after the request; first execution took ${timeOf('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW') - timeOf('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED')} ms`,
        );
        const closing = historyJson(first).events.at(-1)?.eventType;
        expect(closing).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
        expect(model.requests[1]!.toolNames).toContain(okEcho);
        expect(model.requests[1]!.toolNames.some((name) => name.startsWith('slow_'))).toBe(false);
      });
    } finally {
      await mcp.disconnect();
    }
  }, 90_000);

  it('leaves no server process behind a shell wrapper, on close and when the worker exits at once', async () => {
    // Before: close signalled only the shell, and the real server (ignoring SIGTERM) lived on with ppid 1.
    const mcp = new MCPConfiguration({ servers: { h: wrappedHostile(['sticky']) } });
    const outcome = await mcp.callServerTool('h', 'pid', {});
    const pid = Number(outcome.kind === 'ok' ? outcome.output : NaN);
    expect(alive(pid)).toBe(true);
    await mcp.disconnect();
    await expect.poll(() => alive(pid), { timeout: 8_000 }).toBe(false);

    const worker = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('../fixtures/mcp/orphan-worker.ts', import.meta.url))],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const orphan = await new Promise<number>((resolve, reject) => {
      let out = '';
      worker.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const match = /PID (\d+)/.exec(out);
        if (match) resolve(Number(match[1]));
      });
      worker.once('exit', (code) => reject(new Error(`worker exited early (${code}): ${out}`)));
    });
    expect(alive(orphan)).toBe(true);
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
    await expect.poll(() => alive(orphan), { timeout: 5_000 }).toBe(false);
  }, 60_000);

  it('offers only provider-safe, non-colliding names, and skips a tool whose name holds a secret', async () => {
    const long = `read_${'x'.repeat(70)}`;
    const names = (list: string[], env: Record<string, string> = {}) => {
      const config = stdioHostile(['names'], env);
      return { ...config, args: [...(config.type === 'stdio' ? (config.args ?? []) : []), '--names', list.join(',')] };
    };
    const mcp = new MCPConfiguration({
      servers: {
        docs: names(['admin_delete_all']),
        docs_admin: names(['delete_all']),
        files: names(['read.file/v2', long]),
        // `customers` is a configured (secret) value: `db_search_[REDACTED]` would be uncallable.
        db: names(['search_customers', 'count'], { DATABASE: 'customers' }),
      },
    });
    const dotted = offeredToolName('files', 'read.file/v2');
    const { model, agent } = hostileAgent(
      'hostile-names',
      [{ toolCalls: [{ toolName: dotted, input: { text: 'hi' }, toolCallId: 'r' }] }, { text: 'done' }],
      mcp,
    );
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const run = await h.start('hostile-names', 'go');
        expect((await run.result()).text).toBe('done');
        const offered = model.requests[0]!.toolNames;
        for (const name of offered) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        // Before: both became docs_admin_delete_all and the last server listed took the calls.
        expect(offered).not.toContain('docs_admin_delete_all');
        expect(offered).toEqual(expect.arrayContaining(['docs_echo', 'docs_admin_echo', 'db_count', dotted]));
        expect(offered.filter((name) => name.startsWith('files_read_x'))).toHaveLength(1);
        expect(offered.some((name) => name.includes('REDACTED'))).toBe(false);
        expect(JSON.stringify(toolResultsSeen(model.requests[1]).get('r'))).toContain(
          'read.file/v2: {\\"text\\":\\"hi\\"}',
        );
        expect(messagesAt(logs, 'warn').join('\n')).toMatch(
          /docs_admin_delete_all' \(docs\/admin_delete_all, docs_admin\/delete_all\)/,
        );
        // The run says so too, where a watcher and run.events() see it (once, whatever order the servers listed in).
        const collided = (await eventsOf(run)).filter((e) => e.type === 'mcp-tools-collided');
        expect(collided).toHaveLength(1);
        expect(collided[0]).toMatchObject({ more: 0, collisions: [{ name: 'docs_admin_delete_all' }] });
        const tools = collided[0]!.type === 'mcp-tools-collided' ? collided[0]!.collisions[0]!.tools : [];
        expect([...tools].sort()).toEqual(['docs/admin_delete_all', 'docs_admin/delete_all']);
      });
    } finally {
      await mcp.disconnect();
    }
  }, 90_000);

  it('keeps credentials of URLs in stdio arguments and tokens in URL paths out of history and logs', async () => {
    const password = `Pg-S3cret-${Date.now()}`;
    const pathToken = `T0k${Date.now()}abcdefghijklmnop`;
    const server = stdioHostile(['crash']);
    const args = [
      ...(server.type === 'stdio' ? (server.args ?? []) : []),
      `postgresql://app:${password}@db:5432/prod`,
      `https://hooks.example.com/services/${pathToken}`,
    ];
    // Its three failing attempts (with Temporal's retry intervals) can outlast the listing budget, and a late
    // listing still in flight when this one-step run ends is cancelled: lifted, so the last attempt's words arrive.
    const mcp = new MCPConfiguration({ servers: { db: { ...server, args } }, listBudget: '2m' });
    const { agent } = hostileAgent('hostile-secret-args', [{ text: 'done' }], mcp);
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const run = await h.start('hostile-secret-args', 'go');
        expect((await run.result()).text).toBe('done');
        const failed = (await eventsOf(run)).find((e) => e.type === 'mcp-server-failed');
        // The server's own words reach the event (so the cause is visible), its credentials do not.
        expect(JSON.stringify(failed)).toMatch(/cannot connect with postgresql:\/\/app:\[REDACTED\]@db/);
        const log = logs.map((entry) => `${entry.message} ${JSON.stringify(entry.meta ?? '')}`);
        const findings = await scanRunForSecrets(
          { client: env.client, workflowId: run.id, extra: { log } },
          { password, pathToken },
        );
        expect(findings).toEqual([]);
      });
    } finally {
      await mcp.disconnect();
    }
  }, 120_000);

  it('formats a noisy server’s stderr only when debug logging is on', async () => {
    const debug: string[] = [];
    const quiet = {
      debug: (m: string) => debug.push(m),
      info() {},
      warn() {},
      error() {},
      isLevelEnabled: (level: string) => level !== 'debug',
    };
    const previous = getGlobalLogger();
    setGlobalLogger(quiet);
    const mcp = new MCPConfiguration({ servers: { h: stdioHostile(['noisy'], { HOSTILE_STDERR: '3000' }) } });
    try {
      expect((await mcp.listServerTools('h')).tools).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Before: one redacted, formatted debug message per chunk, thrown away by the logger.
      expect(debug.filter((m) => m.includes('stderr'))).toEqual([]);
    } finally {
      setGlobalLogger(previous);
      await mcp.disconnect();
    }
  }, 60_000);

  it("keeps docs/mcp.md's admin-only policy from being defeated by a starter who claims admin", async () => {
    // Before: `start clerk "delete Ada" --context '{"role":"admin"}'` ran delete_contact: context was trusted.
    const key = 'test-claims-key-0123456789abcdef';
    const server = stdioHostile(['names']);
    const mcp = new MCPConfiguration({
      servers: {
        crm: {
          ...server,
          args: [...(server.type === 'stdio' ? (server.args ?? []) : []), '--names', 'delete_contact'],
        },
      },
      authorization: {
        can: ({ toolName, context }) => toolName !== 'delete_contact' || context?.get('role') === 'admin',
        verifyIdentity: verifySignedClaims(key),
      },
    });
    const step = { toolCalls: [{ toolName: 'crm_delete_contact', input: { text: 'Ada' }, toolCallId: 'd' }] };
    const { model, agent } = hostileAgent('hostile-claims', [step, { text: 'done' }, step, { text: 'done' }], mcp);
    try {
      await withAgentWorker(env, [agent], async (h) => {
        const claimed = await h.start('hostile-claims', 'delete Ada', { userId: 'intern', context: { role: 'admin' } });
        expect((await claimed.result()).text).toBe('done');
        expect(JSON.stringify(toolResultsSeen(model.requests[1]).get('d'))).toMatch(
          /MCPAuthorizationError|not allowed|denied|refused/i,
        );
        const token = signClaims({ userId: 'ada', context: { role: 'admin' } }, key);
        const signed = await h.start('hostile-claims', 'delete Ada', { userId: 'ada', context: { claims: token } });
        expect((await signed.result()).text).toBe('done');
        expect(JSON.stringify(toolResultsSeen(model.requests[3]).get('d'))).toContain('delete_contact: ');
      });
    } finally {
      await mcp.disconnect();
    }
  }, 90_000);
});
