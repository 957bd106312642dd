// `durable-agent dev` and `durable-agent worker` host a user's own agents file, as a person runs them: the real
// command line in a child process, a real embedded dev server (dev) or the suite's server (worker), and a client
// that runs the hosted agent. dev restarts its worker when the file changes, and keeps the server.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { testServer, uniqueTaskQueue } from '../support/temporal.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const children: ChildProcess[] = [];

afterEach(async () => {
  // SIGINT first: `dev` stops its dev server on it, while a SIGKILL would leave the server running, orphaned.
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }),
  );
});

/** An agents file outside the repository, importing this repository's sources by absolute path. */
function agentsProject(names: string[]): { dir: string; write: (names: string[]) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'cli-host-'));
  // As in a project `init` writes: ES modules.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const agent = (name: string) =>
    `new Agent({ name: '${name}', instructions: 'Greet.', model: 'offline/demo', tools: [greet] })`;
  const write = (list: string[]) =>
    writeFileSync(
      join(dir, 'agents.ts'),
      [
        `import { z } from '${join(ROOT, 'node_modules', 'zod', 'index.js')}';`,
        `import { Agent } from '${join(ROOT, 'src', 'agent', 'agent.ts')}';`,
        `import { createTool } from '${join(ROOT, 'src', 'tool', 'tool.ts')}';`,
        "const greet = createTool({ name: 'greet', description: 'Greet a person.',",
        '  parameters: z.object({ name: z.string() }), execute: async ({ name }) => ({ greeting: `Hello ${name}` }) });',
        `export const agents = [${list.map(agent).join(', ')}];`,
      ].join('\n'),
    );
  write(names);
  return { dir, write };
}

/** Runs the CLI; `output()` is everything it printed so far, `waitFor` resolves when a pattern appears. */
function launch(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'durable-agent.mjs'), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', ...env },
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const waitFor = async (pattern: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(output);
      if (match) return match;
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`No ${pattern} in the output:\n${output}`);
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  };
  return { child, output: () => output, waitFor };
}

describe('durable-agent dev and worker', () => {
  it('dev hosts the agents on an embedded server, prints the Web UI, and restarts the worker on change', async () => {
    const project = agentsProject(['greeter']);
    const dev = launch(['dev', 'agents.ts'], project.dir, {});
    const [, address] = await dev.waitFor(/Temporal dev server at (\S+)/);
    await dev.waitFor(/Web UI: http:\/\/127\.0\.0\.1:\d+\/namespaces\/default\/workflows/);
    await dev.waitFor(/worker ready: greeter on task queue 'durable-agent'/);

    const client = await AgentClient.connect({ address: address! });
    try {
      const first = await client.start('greeter', 'Greet Ada');
      expect((await first.result()).text).toContain('Hello');

      project.write(['greeter', 'welcomer']);
      await dev.waitFor(/agents\.ts changed: restarting the worker/);
      await dev.waitFor(/worker ready: greeter, welcomer/);
      const second = await client.start('welcomer', 'Greet Grace');
      expect((await second.result()).text).toContain('Hello');
    } finally {
      await client.temporal.connection.close();
    }
    // Quiet by default: no bundler statistics or worker state changes.
    expect(dev.output()).not.toMatch(/webpack|Worker state changed/);

    const exited = new Promise<number | null>((resolveExit) => dev.child.once('exit', resolveExit));
    dev.child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 180_000);

  it('exits as soon as the connection is refused, instead of waiting out the connect timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-refused-'));
    // Port 1 on loopback: nothing listens, the kernel refuses at once.
    const list = launch(['list'], dir, { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    await list.waitFor(/nothing is listening on 127\.0\.0\.1:1 \(connection refused\)/, 60_000);
    const printed = Date.now();
    const code = await new Promise<number | null>((resolveExit) => {
      if (list.child.exitCode !== null) resolveExit(list.child.exitCode);
      else list.child.once('exit', resolveExit);
    });
    expect(code).toBe(1);
    // The SDK's connect timeout is 10 s; a process that lingers after its message was waiting on it.
    expect(Date.now() - printed).toBeLessThan(3_000);
  }, 90_000);

  it('says how to fix an agents file that loads as CommonJS', async () => {
    const project = agentsProject(['greeter']);
    rmSync(join(project.dir, 'package.json'));
    const worker = launch(['worker'], project.dir, { TEMPORAL_ADDRESS: testServer().address });
    await worker.waitFor(/add "type": "module" to your package\.json, or name the file agents\.mts/, 60_000);
  }, 90_000);

  it('worker hosts the agents against TEMPORAL_ADDRESS', async () => {
    const project = agentsProject(['greeter']);
    const { address, namespace } = testServer();
    const taskQueue = uniqueTaskQueue('cli-worker');
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: taskQueue };
    const worker = launch(['worker'], project.dir, env);
    await worker.waitFor(new RegExp(`worker ready: greeter on task queue '${taskQueue}' at ${address}`));
    const client = await AgentClient.connect({ address, namespace, taskQueue });
    try {
      expect((await (await client.start('greeter', 'Greet Ada')).result()).text).toContain('Hello');
    } finally {
      await client.temporal.connection.close();
    }
  }, 120_000);
});
