// What `npm pack` ships, checked by maintained tools: publint (every file `exports`, `types` and `bin` name is in the
// tarball, the conditions are in a working order) and Are The Types Wrong (each entry resolves with its types under
// node16 ESM and bundlers). And the road the README gives a newcomer, from this tarball as npm would fetch it: a plain
// `npm install` of it in an empty project gives one copy of each @temporalio package with no overrides block, and
// `npx --package=<tarball> durable-agent init` from an empty npx cache writes a project whose `npm install`,
// `npm test` and `npm start` work, on the lowest supported Node (22.12) and on Node 24. Minutes: mostly npm. The
// rest of the road (`npm run dev` and the hints it prints) is test/drills/newcomer.test.ts.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  buildAndPack,
  freshNpxCache,
  installNode,
  tarballBytes,
  type PackedPackage,
} from '../support/packed-package.js';
import { testServer } from '../support/temporal.js';

let packed: PackedPackage;

beforeAll(async () => {
  packed = await buildAndPack('durable-agent-pack-');
}, 300_000);

afterAll(() => packed?.cleanup());

describe('the npm package', () => {
  it('ships what its exports, types and bin point at (publint, attw)', async () => {
    const { messages, pkg } = await publint({
      pack: { tarball: tarballBytes(packed.tarball) },
      level: 'suggestion',
      strict: true,
    });
    expect(messages.map((message) => formatMessage(message, pkg))).toEqual([]);
    // An ESM-only package: CommonJS and node10 resolution are out of scope, everything else must resolve.
    const attw = join(ROOT, 'node_modules', '.bin', 'attw');
    await packed.sh(attw, [packed.tarball, '--profile', 'esm-only', '--format', 'table-flipped'], ROOT);
    const { stdout: listing } = await packed.sh('tar', ['-tzf', packed.tarball], packed.work);
    expect(listing).not.toMatch(/\.map$/m);
    expect(listing).toContain('package/scripts/install-temporal.mjs');
    expect(listing).toContain('package/templates/project/src/agents.ts');
    expect(listing).toContain('package/templates/project/_gitignore');
    expect(listing).toContain('package/dist/ui/app.js');
  });

  it('serves the inbox page from the tarball alone (durable-agent ui)', async () => {
    // The tarball unpacked, with this repository's dependencies: what an install of it runs, without the download.
    const unpacked = join(packed.work, 'unpacked');
    mkdirSync(unpacked);
    await packed.sh('tar', ['-xzf', packed.tarball, '-C', unpacked], packed.work);
    symlinkSync(join(ROOT, 'node_modules'), join(unpacked, 'package', 'node_modules'), 'dir');
    const { address, namespace } = testServer();
    const child = spawn(
      process.execPath,
      [join(unpacked, 'package', 'bin', 'durable-agent.mjs'), 'ui', '--user', 'packer'],
      {
        cwd: unpacked,
        env: packed.env({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let output = '';
      const link = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no link printed:\n${output}`)), 60_000);
        const read = (chunk: Buffer) => {
          output += chunk.toString('utf8');
          const found = /http:\/\/127\.0\.0\.1:\d+\/login\?token=[\w-]+/.exec(output);
          if (found) {
            clearTimeout(timer);
            resolve(found[0]);
          }
        };
        child.stdout.on('data', read);
        child.stderr.on('data', read);
        child.once('exit', () => reject(new Error(`durable-agent ui exited:\n${output}`)));
      });
      const login = await fetch(link, { redirect: 'manual' });
      expect(login.status).toBe(303);
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const origin = new URL(link).origin;
      const page = await fetch(`${origin}/`, { headers: { cookie } });
      expect(await page.text()).toContain('src="/app.js"');
      const app = await fetch(`${origin}/app.js`);
      expect(app.headers.get('content-type')).toContain('text/javascript');
      expect(await app.text()).toContain('Waiting for people');
      const inbox = await fetch(`${origin}/api/inbox`, { headers: { cookie } });
      expect(await inbox.json()).toMatchObject({ user: 'packer', reviewer: true, items: expect.any(Array) });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
  }, 120_000);

  it('npm install <tarball> in an empty project: one copy of each @temporalio package, no overrides, on Node 22.12', async () => {
    const node22 = await installNode(packed, '22.12.0', join(packed.work, 'node-22'));
    const env = { PATH: `${node22}:${packed.env().PATH}` };
    const empty = join(packed.work, 'empty');
    mkdirSync(empty);
    const { stdout: version } = await packed.sh('node', ['--version'], empty, env);
    expect(version.trim()).toBe('v22.12.0');
    await packed.sh('npm', ['init', '-y'], empty, env);
    await packed.sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', packed.tarball], empty, env);
    expect(JSON.parse(readFileSync(join(empty, 'package.json'), 'utf8'))).not.toHaveProperty('overrides');
    for (const pkg of ['@temporalio/proto', '@temporalio/workflow', '@temporalio/common']) {
      const { stdout: tree } = await packed.sh('npm', ['ls', '--all', pkg], empty, env);
      expect(tree).not.toMatch(/invalid|UNMET/);
      expect(new Set(tree.match(new RegExp(`${pkg}@\\S+`, 'g')))).toHaveLength(1);
    }
    // And `npx … init` from an empty npx cache, on the same Node: the command crashed on load with a second
    // @temporalio/proto (protobufjs "duplicate name 'ActivityHeartbeat'").
    const clean = join(packed.work, 'clean-22');
    mkdirSync(clean);
    const cache = await freshNpxCache(join(packed.work, 'npx-cache-22'));
    const npx = ['--yes', `--package=${packed.tarball}`, 'durable-agent', 'init', 'my-agent'];
    const init = await packed.sh('npx', npx, clean, { ...env, npm_config_cache: cache });
    expect(init.stdout).toContain('npm start');
    expect(readdirSync(join(clean, 'my-agent'))).toEqual(expect.arrayContaining(['package.json', 'src']));
  }, 600_000);

  it('the README road on Node 24: npx --package=<tarball> durable-agent init, npm install, npm test, npm start', async () => {
    const clean = join(packed.work, 'clean-24');
    mkdirSync(clean);
    const cache = await freshNpxCache(join(packed.work, 'npx-cache-24'));
    const npx = ['--yes', `--package=${packed.tarball}`, 'durable-agent', 'init', 'my-agent'];
    const init = await packed.sh('npx', npx, clean, { npm_config_cache: cache });
    expect(init.stdout).toContain('npm start');
    const project = join(clean, 'my-agent');
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).not.toHaveProperty('overrides');
    expect(manifest).toMatchObject({ engines: { node: '>=22.12' } });
    // The generated project names durable-agent by its version, which the registry does not have (this is the
    // tarball of an unpublished build): install the tarball, as the published version would be.
    await packed.sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', packed.tarball], project);
    const { stdout: tree } = await packed.sh('npm', ['ls', '--all', '@temporalio/proto'], project);
    expect(new Set(tree.match(/@temporalio\/proto@\S+/g))).toHaveLength(1);
    const tests = await packed.sh('npm', ['test'], project);
    expect(tests.stdout).toMatch(/Tests\s+\d+ passed/);
    expect(tests.stdout).not.toMatch(/failed/);
    const start = await packed.sh('npm', ['start'], project);
    expect(start.stdout).toContain('waiting for approval: refund_order');
    expect(start.stdout).toMatch(/answer: [^]*refund_order/);
  }, 600_000);
});
