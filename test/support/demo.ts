// `npm run demo` as a child process against the suite's Temporal server, for the demo's tests
// (test/integration/demo.test.ts, demo-model.test.ts).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { testServer } from './temporal.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEMO = fileURLToPath(new URL('../../examples/demo.ts', import.meta.url));
// Three runs and a three-turn conversation, four workers started: a minute or more on a loaded 2-core machine.
export const DEMO_TIMEOUT_MS = 180_000;

export interface DemoResult {
  code: number | null;
  output: string;
}

/** Runs the demo with a clean model environment (offline unless `env` says otherwise) on a fresh task queue. */
export async function runDemo(taskQueue: string, env: Record<string, string> = {}): Promise<DemoResult> {
  const { address, namespace } = testServer();
  const base = { ...process.env };
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AGENT_MODEL', 'FORCE_COLOR']) delete base[key];
  const child = spawn(process.execPath, ['--import', 'tsx', DEMO], {
    cwd: ROOT,
    env: {
      ...base,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGINT'), DEMO_TIMEOUT_MS - 10_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output };
}

/** Asserts `patterns` occur in `text` in this order; returns the matches. */
export function inOrder(text: string, patterns: RegExp[]): RegExpExecArray[] {
  let from = 0;
  return patterns.map((pattern) => {
    const match = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(text.slice(from));
    expect(match, `${pattern} after offset ${from} in:\n${text}`).not.toBeNull();
    from += match!.index + match![0].length;
    return match!;
  });
}
