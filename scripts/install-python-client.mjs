#!/usr/bin/env node
// Makes a Python virtual environment with Temporal's Python SDK (PyPI `temporalio`, pinned) for the tests that
// prove a Python client can use a run's stream (its `workflow_streams` contrib speaks the same signal/update/query
// protocol as the run's stream, src/protocol/stream-wire.ts). Idempotent and quick when the pinned version is there. Without
// python3 and its venv module it says why and exits 0, and those tests are skipped with the same reason.
//
// Usage: node scripts/install-python-client.mjs   (stdout: the venv's python path, or nothing; notes go to stderr)
// Plain Node ESM without dependencies, so it runs on the bootstrap Node (>= 20) before anything is built.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const TEMPORALIO_VERSION = '1.35.0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const venv = join(root, '.tools', 'python-client');
const python = join(venv, 'bin', 'python');
const stamp = join(venv, 'durable-agent-version');

function log(message) {
  process.stderr.write(`install-python-client: ${message}\n`);
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: ['ignore', 2, 2] });
  return result.status === 0;
}

if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === TEMPORALIO_VERSION && existsSync(python)) {
  process.stdout.write(`${python}\n`);
  process.exit(0);
}
if (spawnSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).status !== 0) {
  log('python3 is not on PATH: the Python client tests will be skipped');
  process.exit(0);
}
rmSync(venv, { recursive: true, force: true });
log(`creating ${venv} with temporalio==${TEMPORALIO_VERSION}`);
if (!run('python3', ['-m', 'venv', venv])) {
  log('python3 -m venv failed (is the venv module installed?): the Python client tests will be skipped');
  process.exit(0);
}
if (
  !run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `temporalio==${TEMPORALIO_VERSION}`])
) {
  rmSync(venv, { recursive: true, force: true });
  log('pip could not install temporalio: the Python client tests will be skipped');
  process.exit(0);
}
writeFileSync(stamp, `${TEMPORALIO_VERSION}\n`);
process.stdout.write(`${python}\n`);
