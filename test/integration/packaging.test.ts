// What `npm pack` ships, checked by maintained tools: publint (every file `exports`, `types` and `bin` name is in the
// tarball, the conditions are in a working order) and Are The Types Wrong (each entry resolves with its types under
// node16 ESM and bundlers). The full newcomer road from this tarball (init, install, the project's tests) is
// test/drills/newcomer.test.ts: it takes minutes.
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, buildAndPack, tarballBytes, type PackedPackage } from '../support/packed-package.js';
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
});
