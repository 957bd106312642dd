// `watch` in a real terminal: the CLI runs as a process in tmux (a pty, so stdin is a TTY in raw mode when asked)
// against the suite's server, with the run's worker in this test. The approval prompt takes one key, no Enter, and
// names who decides and where the name comes from; the run records that name as its approver.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssistant } from '../../examples/agents.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { cliEnv } from '../support/cli-harness.js';
import { createTestEnv } from '../support/temporal.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EMAIL_PROMPT = 'Check the current weather in Paris and email "Paris weather update" to team@example.com.';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** A tmux server of this test's own (its socket name), so nothing else's sessions are touched. */
function tmuxServer() {
  const socket = `durable-agent-test-${randomUUID().slice(0, 8)}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  return {
    /** Runs `command` (a shell line) at the clone's root in a 200×50 terminal; the pane stays once it exits. */
    start(command: string, environment: Record<string, string>) {
      const exports = Object.entries(environment).map(([name, value]) => `export ${name}=${shellWord(value)};`);
      const line = `${exports.join(' ')} ${command}; echo "EXIT=$?"; sleep 600`;
      tmux('new-session', '-d', '-s', 'cli', '-c', ROOT, '-x', '200', '-y', '50', line);
    },
    screen: () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'cli'),
    /** Types `keys` literally: no Enter unless it is in them. */
    type: (keys: string) => tmux('send-keys', '-l', '-t', 'cli', keys),
    kill: () => {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
}

function shellWord(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

async function until(read: () => string, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = read();
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}:\n${text}`);
    await delay(200);
  }
}

describe('watch in a terminal', () => {
  it('takes the approval as one key and records who decided', { timeout: 150_000 }, async () => {
    await withAgentWorker(env, [createAssistant('offline/demo')], async ({ taskQueue, start }) => {
      const run = await start('assistant', EMAIL_PROMPT);
      const terminal = tmuxServer();
      try {
        terminal.start(
          `${shellWord(process.execPath)} bin/durable-agent.mjs watch ${shellWord(run.id)} --approver pat`,
          { ...cliEnv(taskQueue), PATH: process.env.PATH ?? '', USER: 'tty-user', HOME: '/nonexistent' },
        );
        await until(terminal.screen, /Approve send_email .* as pat \(--approver\)\? \[y\]es \/ \[n\]o \/ \[s\]kip $/m);
        terminal.type('y');
        const screen = await until(terminal.screen, /EXIT=\d+/);
        expect(screen).toMatch(/\[s\]kip y$/m);
        expect(screen).toContain('approved send_email by pat');
        expect(screen).toContain('EXIT=0');
        const result = await run.result();
        expect(result.approvals).toMatchObject([{ approved: true, approver: 'pat' }]);
      } finally {
        terminal.kill();
      }
    });
  });
});
