// Running the `durable-agent` CLI in tests against the suite's Temporal server: in-process through `main` with
// captured output, as a shell runs a printed command line, and in a scripted terminal (a person typing answers).
import { execFile } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { main } from '../../src/cli/main.js';
import { testServer } from './temporal.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** What a command printed, and its exit status. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment the CLI runs with: the suite's server, `taskQueue`, no colours, no config file. */
export function cliEnv(taskQueue: string): Record<string, string> {
  const { address, namespace } = testServer();
  return {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    NO_COLOR: '1',
    HOME: '/nonexistent',
  };
}

/** Runs the CLI in-process against the suite's server, on `taskQueue`, without colours. */
export async function cli(taskQueue: string, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: cliEnv(taskQueue),
    requestTimeoutMs: 5_000,
  });
  return { code, stdout, stderr };
}

/** Runs a command line the CLI printed, as printed, in a shell at the root of this clone. */
export async function shell(taskQueue: string, commandLine: string): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', commandLine], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...cliEnv(taskQueue), USER: 'shell-user' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A terminal for `main`: stdin a person types into, stdout that says it is a TTY, both captured. */
export function terminal() {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let stdout = '';
  return {
    stdin,
    stdout: { write: (text: string) => (stdout += text), isTTY: true },
    output: () => stdout,
    /** Waits until the output shows `text` (a question), then types `line` (echoed, as a terminal does). */
    async answer(text: string, line: string): Promise<void> {
      for (let i = 0; !stdout.includes(text); i++) {
        if (i > 600) throw new Error(`never asked "${text}":\n${stdout}`);
        await delay(50);
      }
      stdout = `${stdout.replace(text, `${text}[answered]`)}${line}\n`;
      stdin.write(`${line}\n`);
    },
  };
}

/** The event lines of `watch` output, without their `HH:MM:SS #n` prefix. */
export function eventLines(stdout: string): string[] {
  return (
    stdout
      .split('\n')
      .filter((line) => /^\d\d:\d\d:\d\d #\d+/.test(line))
      // `HH:MM:SS `, then `#n` padded to four characters and a space.
      .map((line) => line.slice(14))
  );
}
