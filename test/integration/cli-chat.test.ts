// `durable-agent chat`: a scripted terminal (a person typing) chats with an agent over a durable conversation on the
// real dev server (scripted model): answers stream, an approval is decided inline, leaving keeps the conversation,
// and `--conversation <id>` rejoins it with its last messages shown.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { main } from '../../src/cli/main.js';
import { ScriptedLanguageModel, type ScriptedRequest } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { cliEnv, terminal } from '../support/cli-harness.js';
import { createTestEnv, randomWorkflowId } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const book = createTool({
  name: 'book',
  description: 'Books a table. Needs approval.',
  parameters: z.object({ at: z.string() }),
  needsApproval: true,
  execute: async ({ at }) => `booked at ${at}`,
});

const model = new ScriptedLanguageModel(
  Array.from({ length: 100 }, () => (request: ScriptedRequest) => {
    const last = request.prompt.at(-1);
    if (last?.role === 'tool') return { text: 'Your table is booked.' };
    if (request.lastUserText.startsWith('book')) return { toolCalls: [{ toolName: 'book', input: { at: '19:00' } }] };
    // Refers to the earlier answer: the turn sees the transcript.
    const earlier = request.prompt.filter((m) => m.role === 'assistant').length;
    return { text: `echo: ${request.lastUserText} (after ${earlier} answers)` };
  }),
);

/** Waits for the chat's `n`-th prompt, then types `line`. */
async function typeAt(term: ReturnType<typeof terminal>, n: number, line: string): Promise<void> {
  for (let i = 0; term.output().split('you> ').length - 1 < n; i++) {
    if (i > 1_200) throw new Error(`never prompted ${n} times:\n${term.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  term.stdin.write(`${line}\n`);
}

describe('durable-agent chat', () => {
  it('chats, decides an approval inline, leaves and rejoins the conversation', { timeout: 150_000 }, async () => {
    const agent = new Agent({ name: 'waiter', instructions: '', model, tools: [book] });
    await withAgentWorker(env, [agent], async (h) => {
      const id = randomWorkflowId('chat');
      const first = terminal();
      const chatting = main(['chat', 'waiter', '--conversation', id], {
        stdin: first.stdin,
        stdout: first.stdout,
        stderr: { write: () => true },
        env: { ...cliEnv(h.taskQueue), USER: 'tty-user' },
        client: h.client,
      });
      await typeAt(first, 1, 'hello');
      await typeAt(first, 2, 'book a table');
      await first.answer('Approve book {"at":"19:00"}', 'y');
      await typeAt(first, 3, '');
      expect(await chatting).toBe(0);
      const out = first.output();
      expect(out).toContain('echo: hello (after 0 answers)');
      expect(out).toContain('approved book by tty-user');
      expect(out).toContain('Your table is booked.');
      expect(out).toContain(`chat waiter --conversation ${id}`);

      // Rejoin: the last messages are shown, and the next turn sees the whole conversation.
      const second = terminal();
      const rejoined = main(['chat', 'waiter', '--conversation', id], {
        stdin: second.stdin,
        stdout: second.stdout,
        stderr: { write: () => true },
        env: { ...cliEnv(h.taskQueue), USER: 'tty-user' },
        client: h.client,
      });
      await typeAt(second, 1, 'and now?');
      await typeAt(second, 2, '/end');
      expect(await rejoined).toBe(0);
      expect(second.output()).toContain('[turn 2] assistant: Your table is booked.');
      expect(second.output()).toContain('echo: and now? (after 3 answers)');
      expect(second.output()).toContain(`Conversation ${id} ended.`);
    });
  });
});
