// This repository as a consumer gets it: built and packed (`npm pack`) into a temporary folder outside the
// repository, with helpers that run commands there in a clean environment (Node 24 of this repository first, no
// Temporal, model or npm-script settings, a fresh user cache so the Temporal CLI is installed as a newcomer's is).
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const exec = promisify(execFile);

/** A packed package in its own temporary folder. */
export interface PackedPackage {
  /** The temporary folder (outside the repository) holding the tarball; projects go here too. */
  work: string;
  tarball: string;
  /** The environment commands run with. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Runs a command in `cwd`; a failure's error carries its output. */
  sh(
    command: string,
    args: string[],
    cwd: string,
    extra?: Record<string, string>,
  ): Promise<{ stdout: string; stderr: string }>;
  /**
   * Removes the folder (the build happened there too), in a detached `rm` that outlives the test process: projects
   * installed there hold thousands of files, which a loaded machine takes minutes to delete.
   */
  cleanup(): void;
}

/**
 * Builds (`npm run build`) and packs this repository. Slow: a full build, tens of seconds on a busy machine. The build
 * runs in a copy of the repository's files inside the temporary folder, never in the repository itself:
 * bin/durable-agent.mjs runs dist/ when it exists, so a dist/ appearing there would shadow the sources for every test
 * running the CLI at the same time (half-built, it fails them).
 */
export async function buildAndPack(prefix: string): Promise<PackedPackage> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const env = (extra: Record<string, string> = {}) => {
    const clean: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value === undefined || /^(npm_|TEMPORAL_|OPENAI_|AGENT_|DURABLE_AGENT_|VITEST|NODE_OPTIONS)/.test(key))
        continue;
      clean[key] = value;
    }
    return {
      ...clean,
      PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
      XDG_CACHE_HOME: join(work, 'cache'),
      NO_COLOR: '1',
      ...extra,
    };
  };
  const sh = async (command: string, args: string[], cwd: string, extra: Record<string, string> = {}) => {
    try {
      return await exec(command, args, { cwd, env: env(extra), timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(
        `${command} ${args.join(' ')} failed in ${cwd}: ${failed.message}\n${failed.stdout}\n${failed.stderr}`,
      );
    }
  };
  const cleanup = () => {
    const rm = spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' });
    rm.on('error', () => rmSync(work, { recursive: true, force: true }));
    rm.unref();
  };
  try {
    const source = await stageSources(join(work, 'source'));
    await sh('npm', ['run', 'build'], source);
    const { stdout } = await sh('npm', ['pack', '--pack-destination', work, '--json'], source);
    const tarball = join(work, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
    return { work, tarball, env, sh, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/**
 * Copies the repository's files (tracked, and new ones git does not ignore; no tests or benches) to `into`, with
 * the repository's node_modules linked in, and returns `into`.
 */
async function stageSources(into: string): Promise<string> {
  const { stdout } = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of stdout.split('\0')) {
    if (!file || /^(test|bench)\//.test(file) || !existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(into, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(into, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'), 'dir');
  return into;
}

/** The tarball's bytes, as publint takes them. */
export function tarballBytes(tarball: string): ArrayBuffer {
  const file = readFileSync(tarball);
  return file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
}

/**
 * An npm cache whose npx folder is empty (no earlier `npx --package` install of anything), sharing the content of
 * the user's npm cache so that packages are not downloaded again: what a newcomer's first `npx` sees, minus the wait.
 */
export async function freshNpxCache(into: string): Promise<string> {
  const { stdout } = await exec('npm', ['config', 'get', 'cache']);
  mkdirSync(into, { recursive: true });
  const content = join(stdout.trim(), '_cacache');
  mkdirSync(content, { recursive: true });
  symlinkSync(content, join(into, '_cacache'), 'dir');
  return into;
}

/**
 * The folder of a Node.js binary of `version`, installed from the npm registry's `node-<platform>-<arch>` package
 * (the binary the `node` package itself installs) into `into`.
 */
export async function installNode(packed: PackedPackage, version: string, into: string): Promise<string> {
  mkdirSync(into, { recursive: true });
  const pkg = `node-${process.platform}-${process.arch}`;
  await packed.sh(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', into, `${pkg}@${version}`],
    into,
  );
  return join(into, 'node_modules', pkg, 'bin');
}
