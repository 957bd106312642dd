// The `durable-agent` CLI against a real Temporal dev server and a real worker hosting the example assistant:
// start, state, approve, deny, watch, cancel and list, called in-process through `main` with captured output; the
// commands it prints run as printed (`npx durable-agent …` in a shell); in a terminal, watch decides approvals.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAssistant } from '../../examples/agents.js';
import { Agent } from '../../src/agent/agent.js';
import { main } from '../../src/cli/main.js';
import type { RunState } from '../../src/protocol/index.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { cli, cliEnv, eventLines, shell, terminal } from '../support/cli-harness.js';
import { createTestEnv, testServer, uniqueTaskQueue } from '../support/temporal.js';

/** Makes the offline model call get_weather, then send_email (which needs approval). */
const EMAIL_PROMPT = 'Check the current weather in Paris and email "Paris weather update" to team@example.com.';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** Reads back the plan and the user a run was started with, from what its tool received. */
const readPlan = createTool({
  name: 'read_plan',
  description: 'Read the plan of the current user.',
  parameters: z.object({}),
  execute: async (_args, options) => ({ userId: options?.userId ?? null, plan: options?.context.get('plan') ?? null }),
});
const planReader = new Agent({
  name: 'plan-reader',
  instructions: 'Read plans.',
  model: 'offline/demo',
  tools: [readPlan],
});

/** `start` a run and return its id. */
async function start(taskQueue: string, ...argv: string[]): Promise<string> {
  const started = await cli(taskQueue, 'start', 'assistant', ...argv);
  expect(started.stderr).toBe('');
  expect(started.code).toBe(0);
  const runId = /^Started run (\S+) of agent 'assistant' on task queue '(.+)'\.$/m.exec(started.stdout);
  expect(runId?.[2]).toBe(taskQueue);
  return runId![1]!;
}

/** Polls `state --json` until the run waits for an approval. */
async function pendingApproval(taskQueue: string, runId: string): Promise<RunState> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { code, stdout, stderr } = await cli(taskQueue, 'state', runId, '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const state = JSON.parse(stdout) as RunState;
    if (state.pendingApprovals.length > 0) return state;
    if (Date.now() > deadline) throw new Error(`run ${runId} never asked for approval: ${stdout}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('durable-agent CLI', () => {
  it('starts a run, shows it waiting for approval, approves it, and watches it to the end', async () => {
    await withAgentWorker(env, [createAssistant('offline/demo')], async ({ taskQueue }) => {
      const runId = await start(taskQueue, EMAIL_PROMPT, '--user', 'cli-user', '--context', '{"plan":"pro"}');
      const state = await pendingApproval(taskQueue, runId);
      const [approval] = state.pendingApprovals;
      expect(approval).toMatchObject({ toolName: 'send_email', args: { subject: 'Paris weather update' } });

      const shown = await cli(taskQueue, 'state', runId);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(`run ${runId}\n  status:   waiting · 1 step done`);
      expect(shown.stdout).toContain(' pending approvals ');
      expect(shown.stdout).toContain(
        `npx durable-agent approve ${runId} ${approval!.toolCallId}  |  npx durable-agent deny ${runId} ${approval!.toolCallId}`,
      );

      // The listing says what the run waits for, and whose run it is.
      const waiting = await cli(taskQueue, 'list', '--query', `WorkflowId = '${runId}'`);
      expect(waiting.stdout).toMatch(new RegExp(`waiting for approval\\s+assistant\\s+${runId}$`, 'm'));

      // An approval for a call the run is not waiting for is refused with the run's own reason.
      const wrong = await cli(taskQueue, 'approve', runId, 'no-such-call');
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(new RegExp(`^error: Rejected by run '${runId}': .*no-such-call`, 'm'));

      // The hint works as printed: a shell in this clone runs `npx durable-agent approve …` (no build step).
      const hint = shown.stdout.split('\n').find((line) => line.includes('npx durable-agent approve'))!;
      const printed = hint.trim().split('  |  ')[0]!;
      const approved = await shell(taskQueue, `${printed} --approver ana --reason 'Recipient checked'`);
      expect(approved.stderr.replace(/^npm warn .*\n/gm, '')).toBe('');
      expect(approved).toMatchObject({
        code: 0,
        stdout: `approved send_email by ana: Recipient checked (tool call ${approval!.toolCallId})\n`,
      });

      const watched = await cli(taskQueue, 'watch', runId);
      expect(watched.code).toBe(0);
      const lines = eventLines(watched.stdout);
      expect(lines[0]).toBe('run started · agent assistant');
      expect(lines).toContain(
        `call get_weather {"city":"Paris"} (${state.pendingApprovals[0]!.toolCallId.replace(/\d+$/, '0')})`,
      );
      expect(lines).toContain('✓ get_weather → {"city":"Paris","tempC":14,"conditions":"light rain"}');
      expect(lines.find((line) => line.startsWith(' APPROVAL NEEDED  send_email'))).toBeDefined();
      expect(lines).toContain('approved send_email by ana: Recipient checked');
      expect(lines.find((line) => line.startsWith('✓ send_email → {"sent":true'))).toBeDefined();
      expect(lines.at(-1)).toBe('finished (completed, stop)');
      // The approval event tells a person watching how to answer it.
      expect(watched.stdout).toContain(`    approve: npx durable-agent approve ${runId} ${approval!.toolCallId}`);

      // Watching from an offset shows only what came after it; past the end, it says the run has ended.
      const tail = await cli(taskQueue, 'watch', runId, '--after', String(state.lastEventSeq));
      expect(eventLines(tail.stdout)[0]).toBe('approved send_email by ana: Recipient checked');
      const past = await cli(taskQueue, 'watch', runId, '--after', '1000');
      expect(past).toMatchObject({ code: 0, stdout: '' });
      expect(past.stderr).toContain(`Run '${runId}' has ended (completed); no events after #1000.`);

      // Deciding again after the run ended is refused clearly.
      const late = await cli(taskQueue, 'deny', runId, approval!.toolCallId);
      expect(late.code).toBe(1);
      expect(late.stderr).toContain(
        `error: Rejected by run '${runId}': Run '${runId}' has completed: it waits for no approval.`,
      );

      const listed = await waitForListing(taskQueue, runId);
      expect(listed).toMatch(/^STARTED +STATUS +AGENT +RUN$/m);
      expect(listed).toMatch(new RegExp(`completed\\s+assistant\\s+${runId}$`, 'm'));

      // A finished run's state shows its answer and who decided.
      const finished = await cli(taskQueue, 'state', runId);
      expect(finished.stdout).toMatch(/^ {2}answer: {3}\S/m);
      expect(finished.stdout).toContain('    approved send_email by ana (as claimed): Recipient checked');
    });
  });

  it('start --watch streams a run with a streaming tool to the end', async () => {
    await withAgentWorker(env, [createAssistant('offline/demo')], async ({ taskQueue }) => {
      const result = await cli(taskQueue, 'start', 'assistant', 'Count', 'slowly', 'to', '3', '--watch');
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = eventLines(result.stdout);
      expect(lines).toContain('call count_slowly {"to":3,"delayMs":300} (offline-call-0)');
      // Yields with a total draw a progress bar.
      expect(lines.filter((line) => /^count_slowly \[[█░]+\] +\d+% \{"counted":/.test(line)).length).toBeGreaterThan(0);
      expect(lines).toContain('✓ count_slowly → {"counted":3,"total":3}');
      expect(lines.at(-1)).toBe('finished (completed, stop)');

      // A run that fails shows why, from the bottom of the failure chain, and the watch exits 1.
      const unknown = await cli(taskQueue, 'start', 'no-such-agent', 'hello', '--watch');
      expect(unknown.code).toBe(1);
      expect(unknown.stdout).toMatch(/ failed: [^]*Unknown agent 'no-such-agent'\. Known agents: assistant\./);
      // Said once, not in the failed event and again as its cause.
      expect(unknown.stdout.split("Unknown agent 'no-such-agent'")).toHaveLength(2);
      // The state of the failed run says why in one line.
      const failedId = /Started run (\S+)/.exec(unknown.stdout)![1]!;
      const failedState = await cli(taskQueue, 'state', failedId);
      expect(failedState.stdout).toContain("  failure:  Unknown agent 'no-such-agent'. Known agents: assistant.");
    });
  });

  it('passes --user and --context to the run: its tools receive both', async () => {
    await withAgentWorker(env, [planReader], async ({ taskQueue }) => {
      const result = await cli(
        taskQueue,
        ...['start', 'plan-reader', 'Read my plan', '--watch', '--user', 'u-42', '--context', '{"plan":"pro"}'],
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(eventLines(result.stdout)).toContain('✓ read_plan → {"userId":"u-42","plan":"pro"}');
      // Without them, the tool sees neither.
      const bare = await cli(taskQueue, 'start', 'plan-reader', 'Read my plan', '--watch');
      expect(eventLines(bare.stdout)).toContain('✓ read_plan → {"userId":null,"plan":null}');
    });
  });

  it('in a terminal, watch offers to decide a pending approval, and records the answer', async () => {
    await withAgentWorker(env, [createAssistant('offline/demo')], async ({ taskQueue }) => {
      const approvedRun = await start(taskQueue, EMAIL_PROMPT);
      const yes = terminal();
      const watching = main(['watch', approvedRun], {
        stdin: yes.stdin,
        stdout: yes.stdout,
        stderr: { write: () => true },
        env: { ...cliEnv(taskQueue), USER: 'tty-user' },
      });
      await yes.answer('Approve send_email {"to":"team@example.com"', 'y');
      expect(await watching).toBe(0);
      const approvedLines = eventLines(yes.output());
      expect(yes.output()).toContain('approved send_email by tty-user\n');
      expect(approvedLines).toContain('approved send_email by tty-user');
      expect(approvedLines.at(-1)).toBe('finished (completed, stop)');

      // No, with a reason the model reads.
      const waitingRun = await start(taskQueue, EMAIL_PROMPT);
      const no = terminal();
      const denying = main(['start', 'assistant', EMAIL_PROMPT, '--watch'], {
        stdin: no.stdin,
        stdout: no.stdout,
        stderr: { write: () => true },
        env: { ...cliEnv(taskQueue), USER: 'tty-user' },
      });
      await no.answer('? [y]es / [n]o / [s]kip ', 'n');
      await no.answer('Reason, for the model (optional): ', 'not to the whole team');
      expect(await denying).toBe(0);
      expect(eventLines(no.output())).toContain('⊘ send_email not run: not to the whole team');

      // A watch that replays a decided approval asks nothing; --no-prompt never asks.
      const replay = terminal();
      expect(
        await main(['watch', approvedRun], {
          stdin: replay.stdin,
          stdout: replay.stdout,
          stderr: { write: () => true },
          env: cliEnv(taskQueue),
        }),
      ).toBe(0);
      expect(replay.output()).not.toContain('Approve send_email');
      const quiet = terminal();
      const quietWatch = main(['watch', waitingRun, '--no-prompt'], {
        stdin: quiet.stdin,
        stdout: quiet.stdout,
        stderr: { write: () => true },
        env: cliEnv(taskQueue),
        signal: AbortSignal.timeout(3_000),
      });
      expect(await quietWatch).toBe(130);
      expect(quiet.output()).toContain(' APPROVAL NEEDED  send_email');
      expect(quiet.output()).not.toContain('Approve send_email');
      await env.client.workflow.getHandle(waitingRun).terminate('test cleanup');
    });
  });

  it('denies a call (the model is told why) and cancels a waiting run', async () => {
    await withAgentWorker(env, [createAssistant('offline/demo')], async ({ taskQueue }) => {
      const denied = await start(taskQueue, EMAIL_PROMPT);
      const { pendingApprovals } = await pendingApproval(taskQueue, denied);
      const deny = await cli(
        taskQueue,
        'deny',
        denied,
        pendingApprovals[0]!.toolCallId,
        '--reason',
        'Not today',
        '--approver',
        'bo',
      );
      expect(deny.stdout).toMatch(/^denied send_email by bo: Not today/);
      const watched = await cli(taskQueue, 'watch', denied);
      expect(eventLines(watched.stdout)).toContain('⊘ send_email not run: Not today');
      expect(watched.code).toBe(0);

      const cancelled = await start(taskQueue, EMAIL_PROMPT);
      await pendingApproval(taskQueue, cancelled);
      const cancel = await cli(taskQueue, 'cancel', cancelled);
      expect(cancel.code).toBe(0);
      expect(cancel.stdout).toContain(`Cancellation requested for run ${cancelled}.`);
      const end = await cli(taskQueue, 'watch', cancelled);
      expect(eventLines(end.stdout).at(-1)).toBe('cancelled');
      expect(end.code).toBe(1);
      const again = await cli(taskQueue, 'cancel', cancelled);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`Run '${cancelled}' has already ended (CANCELLED); there is nothing to cancel.`);

      // A run Temporal terminated records no terminal event: the watch says how it ended instead of waiting on.
      const terminated = await start(taskQueue, EMAIL_PROMPT);
      await pendingApproval(taskQueue, terminated);
      await env.client.workflow.getHandle(terminated).terminate('by the test');
      const cut = await cli(taskQueue, 'watch', terminated);
      expect(cut.code).toBe(1);
      expect(eventLines(cut.stdout).at(-1)).toMatch(/APPROVAL NEEDED/);
      expect(cut.stderr).toContain(`Run '${terminated}' ended (TERMINATED) without recording how.`);
    });
  });

  it('explains what went wrong: unknown runs, no worker, rejected results, answers to unknown runs, bad input', async () => {
    const taskQueue = uniqueTaskQueue('cli-no-worker');
    const unknown = await cli(taskQueue, 'state', 'no-such-run');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: No run 'no-such-run' in namespace '.+' at .+\.$/m);

    const orphan = await start(taskQueue, 'hello');
    try {
      const noWorker = await cli(taskQueue, 'state', orphan);
      expect(noWorker.code).toBe(1);
      expect(noWorker.stderr).toContain(
        `error: No worker is polling task queue '${taskQueue}' (namespace '${testServer().namespace}'), so nothing ` +
          `answered the state query of run '${orphan}' within 5 s. Start a worker`,
      );
      const submit = await cli(taskQueue, 'submit', orphan, 'call-1', '{"ok":true}');
      expect(submit.code).toBe(1);
      expect(submit.stderr).toContain(`so nothing answered the tool result of run '${orphan}' within 5 s.`);
      expect(submit.stderr).toContain('a worker that starts later may still apply it');
    } finally {
      await env.client.workflow.getHandle(orphan).terminate('test cleanup');
    }

    const answer = await cli(taskQueue, 'answer', 'any-run', 'e1', 'accept', '{"a":1}');
    expect(answer.code).toBe(1);
    expect(answer.stderr).toMatch(/^error: No run 'any-run' in namespace '.+' at .+\.$/m);

    const badJson = await cli(taskQueue, 'submit', 'r', 'c', '{nope');
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(
      /^error: <outputJSON> is not valid JSON .*\nRun 'npx durable-agent help submit' for usage\.\n$/,
    );
    const unknownCommand = await cli(taskQueue, 'launch');
    expect(unknownCommand).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: Unknown command 'launch'.\nRun 'npx durable-agent help' for usage.\n",
    });
    const help = await cli(taskQueue, 'help', 'watch');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npx durable-agent watch <runId> \[options\]/);

    const unreachable = await main(['list'], {
      stdout: { write: () => true },
      stderr: {
        write: (text: string) =>
          expect(text).toMatch(/^error: Cannot connect to Temporal at 127\.0\.0\.1:1 .*nothing is listening/),
      },
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1', NO_COLOR: '1', HOME: '/nonexistent' },
    });
    expect(unreachable).toBe(1);
  });
});

/** `list` output once visibility (eventually consistent) shows the run's final status. */
async function waitForListing(taskQueue: string, runId: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { code, stdout } = await cli(taskQueue, 'list', '--query', `WorkflowId = '${runId}'`);
    expect(code).toBe(0);
    if (stdout.includes('completed') || Date.now() > deadline) return stdout;
    await new Promise((r) => setTimeout(r, 200));
  }
}
