// Two projects on one Temporal server keep their runs apart: each project's worker (`durable-agent worker`, a real
// child process) polls the project's own task queue, the name in its package.json, and the CLI started in a
// project's folder starts runs there. A run that still reaches a worker without its agent fails saying how to fix
// it (TEMPORAL_TASK_QUEUE), naming the worker's queue and agents.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { projectTaskQueue } from '../../src/connection/project-task-queue.js';
import { testServer } from '../support/temporal.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = join(ROOT, 'bin', 'durable-agent.mjs');
const children: ChildProcess[] = [];

/** A project folder named `name` (its package.json), whose src/agents.ts hosts `agents`, each answering `reply`. */
function project(name: string, agents: string[], reply: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'two-projects-'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, type: 'module' })}\n`);
  mkdirSync(join(dir, 'src'));
  // The tool's answer says which project ran the call.
  const agent = (agentName: string) =>
    `new Agent({ name: '${agentName}', instructions: 'Greet.', model: 'offline/demo', tools: [greet] })`;
  writeFileSync(
    join(dir, 'src', 'agents.ts'),
    [
      `import { z } from '${join(ROOT, 'node_modules', 'zod', 'index.js')}';`,
      `import { Agent } from '${join(ROOT, 'src', 'agent', 'agent.ts')}';`,
      `import { createTool } from '${join(ROOT, 'src', 'tool', 'tool.ts')}';`,
      "const greet = createTool({ name: 'greet', description: 'Greet a person.',",
      `  parameters: z.object({ name: z.string() }), execute: async () => ({ greeting: '${reply}' }) });`,
      `export const agents = [${agents.map(agent).join(', ')}];`,
    ].join('\n'),
  );
  return dir;
}

/** The CLI in `cwd` against the suite's server, with no TEMPORAL_TASK_QUEUE. */
function launch(args: string[], cwd: string, env: Record<string, string> = {}) {
  const { address, namespace } = testServer();
  const child = spawn(process.execPath, [LAUNCHER, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: '/nonexistent',
      NO_COLOR: '1',
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      ...env,
    },
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
  const waitFor = async (pattern: RegExp, timeoutMs = 90_000): Promise<void> => {
    for (const deadline = Date.now() + timeoutMs; !pattern.test(output); ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`No ${pattern} in the output:\n${output}`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  };
  return { output: () => output, exited, waitFor };
}

const suffix = randomUUID().slice(0, 8);
const shop = { name: `shop-${suffix}`, dir: '' };
const desk = { name: `desk-${suffix}`, dir: '' };

beforeAll(async () => {
  // Both projects host an agent called 'support', as two projects `init` wrote do, and one of their own.
  shop.dir = project(shop.name, ['support', 'cashier'], 'shop greeting');
  desk.dir = project(desk.name, ['support', 'helpdesk'], 'desk greeting');
  const workers = [launch(['worker'], shop.dir), launch(['worker'], desk.dir)];
  await Promise.all([
    workers[0]!.waitFor(new RegExp(`worker ready: support, cashier on task queue '${shop.name}'`)),
    workers[1]!.waitFor(new RegExp(`worker ready: support, helpdesk on task queue '${desk.name}'`)),
  ]);
  expect(workers[0]!.output()).toContain(
    'the task queue is the name in package.json; TEMPORAL_TASK_QUEUE sets another',
  );
}, 120_000);

afterAll(async () => {
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

describe('two projects on one Temporal server', () => {
  it("a worker started from another project's folder prints a hint that names its queue", async () => {
    const worker = launch(['worker', join(shop.dir, 'src', 'agents.ts')], desk.dir);
    await worker.waitFor(/start a run: /);
    // Run as printed in the desk project's folder, `start` would go to the desk's queue: the hint sets the shop's.
    expect(worker.output()).toContain(
      `start a run: TEMPORAL_TASK_QUEUE=${shop.name} npx durable-agent start support "Hello" --watch`,
    );
    expect(worker.output()).toContain(`worker ready: support, cashier on task queue '${shop.name}'`);
  }, 120_000);

  it("each project's runs reach its own worker, through the CLI and through its own scripts", async () => {
    // The CLI in each project's folder (a subfolder works too) starts runs on that project's queue.
    const inShop = launch(['start', 'support', 'Greet Ada', '--watch'], join(shop.dir, 'src'));
    const inDesk = launch(['start', 'support', 'Greet Grace', '--watch'], desk.dir);
    expect(await inShop.exited).toBe(0);
    expect(await inDesk.exited).toBe(0);
    expect(inShop.output()).toContain(`on task queue '${shop.name}'`);
    expect(inShop.output()).toContain('shop greeting');
    expect(inShop.output()).not.toContain('desk greeting');
    expect(inDesk.output()).toContain('desk greeting');
    expect(inDesk.output()).not.toContain('shop greeting');

    // A project's scripts pass projectTaskQueue() to AgentClient. Runs of both at once, several each: on one shared
    // queue, about half would reach the other project's worker.
    const { address, namespace } = testServer();
    const clients = await Promise.all(
      [shop, desk].map((p) =>
        AgentClient.connect({ address, namespace, taskQueue: projectTaskQueue({ dir: p.dir, env: {} }) }),
      ),
    );
    try {
      const answers = await Promise.all(
        clients.flatMap((client) =>
          Array.from(
            { length: 4 },
            async (_, i) => (await (await client.start('support', `Greet person ${i}`)).result()).text,
          ),
        ),
      );
      expect(answers.slice(0, 4).every((text) => text.includes('shop greeting'))).toBe(true);
      expect(answers.slice(4).every((text) => text.includes('desk greeting'))).toBe(true);
    } finally {
      await Promise.all(clients.map((client) => client.temporal.connection.close()));
    }
  }, 120_000);

  it('a run that reaches a worker without its agent fails naming the queue, the agents and TEMPORAL_TASK_QUEUE', async () => {
    // 'helpdesk' is the desk project's, started on the shop's queue: the shop's worker takes it.
    const wrong = launch(['start', 'helpdesk', 'Greet Ada', '--watch'], desk.dir, { TEMPORAL_TASK_QUEUE: shop.name });
    expect(await wrong.exited).toBe(1);
    const output = wrong.output().replace(/\s+/g, ' ');
    expect(output).toContain(`Unknown agent 'helpdesk'. Known agents: support, cashier.`);
    expect(output).toContain(`The worker that got the run polls task queue '${shop.name}' and hosts only these.`);
    expect(output).toContain('give each project its own with TEMPORAL_TASK_QUEUE');
  }, 120_000);
});
