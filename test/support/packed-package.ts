// This repository as a consumer gets it: built and packed (`npm pack`) into a temporary folder outside the
// repository, with helpers that run commands there in a clean environment (Node 24 of this repository first, no
// Temporal, model or npm-script settings, a fresh user cache so the Temporal CLI is installed as a newcomer's is).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  /** Removes the folder, and the dist/ the build made when there was none before. */
  cleanup(): void;
}

/** Builds (`npm run build`) and packs this repository. Slow: a full build, tens of seconds on a busy machine. */
export async function buildAndPack(prefix: string): Promise<PackedPackage> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  // bin/durable-agent.mjs runs dist/ when it exists: a build left behind would shadow the sources in later tests.
  const hadDist = existsSync(join(ROOT, 'dist'));
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
    rmSync(work, { recursive: true, force: true });
    if (!hadDist) rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  };
  try {
    await sh('npm', ['run', 'build'], ROOT);
    const { stdout } = await sh('npm', ['pack', '--pack-destination', work, '--json'], ROOT);
    const tarball = join(work, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
    return { work, tarball, env, sh, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** The tarball's bytes, as publint takes them. */
export function tarballBytes(tarball: string): ArrayBuffer {
  const file = readFileSync(tarball);
  return file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
}
