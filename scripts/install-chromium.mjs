#!/usr/bin/env node
// Makes headless Chromium available at /usr/bin/chromium for the browser tests (test/support/browser.ts), from
// Debian's `chromium` package, as install-temporal.mjs does for the Temporal CLI. Idempotent and fast when present:
// a working /usr/bin/chromium (or CHROMIUM_PATH) is only checked. Installing needs root and apt-get (Debian,
// Ubuntu); elsewhere it says what to do.
//
// Usage: node scripts/install-chromium.mjs   (stdout: the executable path; progress goes to stderr)
// Plain Node ESM without dependencies, so it runs on the bootstrap Node (>= 20) before anything is built.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import process from 'node:process';

const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Progress goes to stderr: stdout carries only the executable path. */
function log(message) {
  process.stderr.write(`install-chromium: ${message}\n`);
}

/** The version the executable reports ("Chromium 156.0.8078.114 built on Debian …"), or undefined. */
function installedVersion() {
  if (!existsSync(executablePath)) return undefined;
  const result = spawnSync(executablePath, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) return undefined;
  return /Chromium (\S+)/.exec(result.stdout)?.[1];
}

/** Runs apt-get with `args`; throws with its output when it fails. */
function aptGet(args) {
  log(`apt-get ${args.join(' ')}`);
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 2, 2],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error && result.error.code === 'ENOENT') {
    throw new Error(
      'apt-get is not available. Install Chromium with your system package manager, or set CHROMIUM_PATH to a ' +
        'Chromium or Chrome executable.',
    );
  }
  return result.status ?? 1;
}

function main() {
  const before = installedVersion();
  if (before) {
    log(`Chromium ${before} already installed at ${executablePath}`);
  } else {
    if (process.env.CHROMIUM_PATH) {
      throw new Error(`CHROMIUM_PATH=${executablePath} does not run (${executablePath} --version failed).`);
    }
    if (typeof process.getuid === 'function' && process.getuid() !== 0) {
      throw new Error(
        'Chromium is missing and installing it needs root: run "sudo apt-get install -y chromium", or set ' +
          'CHROMIUM_PATH to a Chromium or Chrome executable.',
      );
    }
    // The package index may be stale in a fresh container: refresh it once when the install fails.
    let status = aptGet(['install', '-y', '--no-install-recommends', 'chromium']);
    if (status !== 0 && aptGet(['update']) === 0) {
      status = aptGet(['install', '-y', '--no-install-recommends', 'chromium']);
    }
    const after = installedVersion();
    if (status !== 0 || !after) {
      throw new Error(
        `apt-get could not install chromium (exit status ${status}). Run "apt-get update && apt-get install -y ` +
          'chromium" and read its output, or set CHROMIUM_PATH to a Chromium or Chrome executable.',
      );
    }
    log(`installed Chromium ${after}`);
  }
  process.stdout.write(`${executablePath}\n`);
}

try {
  main();
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
