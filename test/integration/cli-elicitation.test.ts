// MCP elicitations from the command line, against a real Temporal dev server, a real worker and the fixture MCP
// server over stdio (its `elicit` tool asks "Who are you?" for a required name and an optional age): `state` shows
// the question with its fields and the commands that answer it, `answer` sends an answer (a wrong one is rejected
// with the run's reason and nothing recorded), `watch` in a terminal asks field by field, and an answer given after
// the worker that held the call has stopped and another has started still reaches the server.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { main } from '../../src/cli/main.js';
import { MCPConfiguration } from '../../src/mcp/configuration.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import type { PendingElicitation, RunState } from '../../src/protocol/index.js';
import { stdioFixture, stopAll } from '../fixtures/mcp/servers.js';
import { activityCounts, toolResultsSeen, withAgentWorker } from '../support/agent-harness.js';
import { cli, cliEnv, eventLines, shell, terminal } from '../support/cli-harness.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
const mcp = new MCPConfiguration({ listBudget: '2m', servers: { local: stdioFixture() } });
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await mcp.disconnect();
  await stopAll();
  await env?.teardown();
});

/** An agent whose scripted model calls the fixture's `elicit` tool, then repeats what the tool returned. */
function askingAgent(): Agent {
  const model = new ScriptedLanguageModel({
    stepSelection: 'assistant-turns',
    steps: [
      { toolCalls: [{ toolName: 'local_elicit', input: {}, toolCallId: 'q' }] },
      (request) => ({ text: `The server got ${JSON.stringify(toolResultsSeen(request).get('q'))}` }),
    ],
  });
  return new Agent({ name: 'asker', instructions: 'Ask who the user is.', model, mcp });
}

/** `start asker` from the CLI; returns the run id. */
async function start(taskQueue: string): Promise<string> {
  const started = await cli(taskQueue, 'start', 'asker', 'Who am I?');
  expect(started).toMatchObject({ code: 0, stderr: '' });
  return /^Started run (\S+) /m.exec(started.stdout)![1]!;
}

/** Polls `state --json` until the run waits for an elicitation; returns the state. */
async function waitingForAnswer(taskQueue: string, runId: string): Promise<RunState & { pending: PendingElicitation }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { code, stdout } = await cli(taskQueue, 'state', runId, '--json');
    if (code === 0) {
      const state = JSON.parse(stdout) as RunState;
      const [pending] = state.pendingElicitations;
      if (pending) return { ...state, pending };
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} never asked a question: ${stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** stderr without npm's own warnings (a shell's `npx` may print some). */
function withoutNpmNoise(stderr: string): string {
  return stderr.replace(/^npm warn .*\n/gm, '');
}

describe('MCP elicitations from the CLI', () => {
  it('shows the question, rejects answers that do not fit with the run’s reason, and accepts the printed command', async () => {
    await withAgentWorker(env, [askingAgent()], async ({ taskQueue, client }) => {
      const runId = await start(taskQueue);
      const { pending, lastEventSeq } = await waitingForAnswer(taskQueue, runId);
      expect(pending).toMatchObject({ toolCallId: 'q', toolName: 'local_elicit', serverName: 'local' });
      const id = pending.id;

      const shown = await cli(taskQueue, 'state', runId);
      expect(shown.code).toBe(0);
      const lines = shown.stdout.split('\n');
      const from = lines.indexOf(' pending elicitations ');
      expect(lines.slice(from, from + 10)).toEqual([
        ' pending elicitations ',
        `  ${id}  local_elicit (MCP server local · tool call q)`,
        '    question: Who are you?',
        '    fields:',
        '      name  string, required, at least 1 character · Your name',
        '      age   integer, 0 to 150',
        `    requested ${pending.requestedAt} · no time limit`,
        `    accept:  npx durable-agent answer ${runId} ${id} accept '{"name":"..."}'`,
        `    decline: npx durable-agent answer ${runId} ${id} decline`,
        `    cancel:  npx durable-agent answer ${runId} ${id} cancel`,
      ]);

      // Answers the run rejects: its reason, what the question asks, how to answer; nothing recorded.
      const missing = await cli(taskQueue, 'answer', runId, id, 'accept', '{"age":36}');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(
        `error: Rejected by run '${runId}': The answer does not fit the question: field 'name' is required. ` +
          'Nothing was recorded.\nThe question of local_elicit (MCP server local):\n  question: Who are you?\n',
      );
      expect(missing.stderr).toContain(`  accept:  npx durable-agent answer ${runId} ${id} accept '{"name":"..."}'`);
      const tooOld = await cli(taskQueue, 'answer', runId, id, 'accept', '{"name":"Ada","age":200}');
      expect(tooOld.stderr).toContain("The answer does not fit the question: field 'age' must be at most 150.");
      const unknown = await cli(taskQueue, 'answer', runId, 'no-such-question', 'decline');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toBe(
        `error: Rejected by run '${runId}': No pending elicitation 'no-such-question'. Pending: ${id}. Nothing was ` +
          `recorded.\nSee what the run waits for: npx durable-agent state ${runId}\n`,
      );
      const after = await waitingForAnswer(taskQueue, runId);
      expect(after.lastEventSeq).toBe(lastEventSeq);
      expect(after.pending.id).toBe(id);

      // The printed command, its placeholder filled in, runs as printed in a shell.
      const printed = lines[from + 7]!.replace('accept:', '').trim().replace('"..."', '"Ada"');
      const accepted = await shell(taskQueue, `${printed} --responder ada`);
      expect(withoutNpmNoise(accepted.stderr)).toBe('');
      expect(accepted).toMatchObject({ code: 0, stdout: `elicitation ${id} accepted by ada: {"name":"Ada"}\n` });

      // The same call continued with the answer, and the run finished.
      const watched = await cli(taskQueue, 'watch', runId);
      expect(watched.code).toBe(0);
      const events = eventLines(watched.stdout);
      expect(events).toContain(
        ` ANSWER NEEDED  local_elicit asks a question (MCP server local · elicitation ${id} · tool call q)`,
      );
      expect(events).toContain(`elicitation ${id} of local_elicit accepted by ada`);
      expect(events.find((line) => line.startsWith('✓ local_elicit → '))).toContain('\\"name\\":\\"Ada\\"');
      expect(events.at(-1)).toBe('finished (completed, stop)');
      const run = client.getRun(runId);
      expect((await run.result()).text).toContain('{\\"action\\":\\"accept\\",\\"content\\":{\\"name\\":\\"Ada\\"}}');
      expect(activityCounts(await run.handle.fetchHistory()).executeTool).toBe(1);

      // Answering an ended run is refused plainly.
      const late = await cli(taskQueue, 'answer', runId, id, 'decline');
      expect(late.code).toBe(1);
      expect(late.stderr).toContain(`error: The run '${runId}' has already ended, so it cannot take this request.`);
    });
  });

  it('in a terminal, watch asks field by field; when someone else answered first, that answer stands and the person is told', async () => {
    await withAgentWorker(env, [askingAgent()], async ({ taskQueue }) => {
      const tty = terminal();
      let stderr = '';
      const watching = main(['start', 'asker', 'Who am I?', '--watch'], {
        stdin: tty.stdin,
        stdout: tty.stdout,
        stderr: { write: (text: string) => (stderr += text) },
        env: { ...cliEnv(taskQueue), USER: 'tty-user' },
      });
      await tty.answer("Answer local_elicit's question? [a]ccept / [d]ecline / [c]ancel / [s]kip ", 'a');
      await tty.answer('Your name\n  name: ', '');
      await tty.answer('name is required.\n  name: ', 'Grace');
      await tty.answer('  age (empty: leave out): ', 'eighty');
      await tty.answer('Type a whole number.\n  age (empty: leave out): ', '85');
      expect(await watching).toBe(0);
      expect(stderr).toBe('');
      const output = tty.output();
      const id = /elicitation (\S+) · tool call q\)/.exec(output)![1]!;
      // The answer as recorded, then the events: the answer, the tool's result with it, the end.
      expect(output).toContain(`\nelicitation ${id} of local_elicit accepted by tty-user: {"name":"Grace","age":85}\n`);
      const events = eventLines(output);
      expect(events).toContain(`elicitation ${id} of local_elicit accepted by tty-user`);
      expect(events.find((line) => line.startsWith('✓ local_elicit → '))).toContain('\\"age\\":85');
      expect(events.at(-1)).toBe('finished (completed, stop)');

      // Someone answers from another shell while the person at the terminal is still deciding.
      const race = terminal();
      let raceErr = '';
      const racing = main(['start', 'asker', 'Who am I?', '--watch'], {
        stdin: race.stdin,
        stdout: race.stdout,
        stderr: { write: (text: string) => (raceErr += text) },
        env: { ...cliEnv(taskQueue), USER: 'tty-user' },
      });
      const question = "Answer local_elicit's question? [a]ccept / [d]ecline / [c]ancel / [s]kip ";
      for (let i = 0; !race.output().includes(question); i++) {
        if (i > 600) throw new Error(`never asked:\n${race.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const raceRun = /^Started run (\S+) /m.exec(race.output())![1]!;
      const { pending } = await waitingForAnswer(taskQueue, raceRun);
      const other = await cli(taskQueue, 'answer', raceRun, pending.id, 'decline', '--user', 'bo');
      expect(other).toMatchObject({ code: 0, stdout: `elicitation ${pending.id} declined by bo\n` });
      await race.answer(question, 'c');
      expect(await racing).toBe(0);
      expect(raceErr).toMatch(/^Not recorded: /);
      const raceEvents = eventLines(race.output());
      expect(raceEvents).toContain(`elicitation ${pending.id} of local_elicit declined by bo`);
      expect(raceEvents.filter((line) => line.startsWith('elicitation '))).toHaveLength(1);
      expect(raceEvents.at(-1)).toBe('finished (completed, stop)');
    });
  });

  it('takes an answer given after the worker holding the call stopped and another started (the run waits)', async () => {
    const taskQueue = uniqueTaskQueue('cli-later');
    // The first worker holds the MCP call open for 300 ms only, then the run waits for the person instead.
    const { runId, id } = await withAgentWorker(
      env,
      [askingAgent()],
      async () => {
        const started = await start(taskQueue);
        const { pending } = await waitingForAnswer(taskQueue, started);
        const handle = env.client.workflow.getHandle(started);
        await expect
          .poll(async () => (await handle.describe()).raw.pendingActivities?.length ?? 0, { timeout: 10_000 })
          .toBe(0);
        return { runId: started, id: pending.id };
      },
      { taskQueue, elicitationHoldMs: 300 },
    );

    // No worker at all now: the CLI says so, and nothing is lost.
    const noWorker = await cli(taskQueue, 'state', runId);
    expect(noWorker.code).toBe(1);
    expect(noWorker.stderr).toContain(`No worker is polling task queue '${taskQueue}'`);

    // "An hour later": a new worker; a watch without prompts sees the question and then the answer.
    await withAgentWorker(
      env,
      [askingAgent()],
      async ({ client }) => {
        const watch = terminal();
        const watching = main(['watch', runId, '--no-prompt'], {
          stdin: watch.stdin,
          stdout: watch.stdout,
          stderr: { write: () => true },
          env: cliEnv(taskQueue),
        });
        // The new worker's first query may wait for its first poll on a loaded machine: ask until it answers.
        await expect
          .poll(async () => (await cli(taskQueue, 'state', runId)).stdout, { timeout: 30_000, interval: 500 })
          .toContain(`  ${id}  local_elicit (MCP server local · tool call q)`);
        const answered = await cli(
          taskQueue,
          'answer',
          runId,
          id,
          'accept',
          '{"name":"Hopper","age":85}',
          '--user',
          'gh',
        );
        expect(answered).toMatchObject({
          code: 0,
          stdout: `elicitation ${id} accepted by gh: {"name":"Hopper","age":85}\n`,
        });
        expect(await watching).toBe(0);
        expect(watch.output()).not.toContain("Answer local_elicit's question?");
        const events = eventLines(watch.output());
        expect(events).toContain(`elicitation ${id} of local_elicit accepted by gh`);
        expect(events.at(-1)).toBe('finished (completed, stop)');

        const run = client.getRun(runId);
        expect((await run.result()).text).toContain('\\"name\\":\\"Hopper\\"');
        // The call was issued twice (held, then re-issued on the new worker and answered from the record), the
        // question asked once.
        expect(activityCounts(await run.handle.fetchHistory()).executeTool).toBe(2);
        expect(events.filter((line) => line.startsWith(' ANSWER NEEDED '))).toHaveLength(1);
      },
      { taskQueue, elicitationHoldMs: 300 },
    );
  });
});
