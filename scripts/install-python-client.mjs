#!/usr/bin/env node
// Makes a Python virtual environment with Temporal's Python SDK (PyPI `temporalio`, pinned) for the tests that
// prove a Python client can use a run's stream (its `workflow_streams` contrib speaks the same signal/update/query
// protocol as the run's stream, src/protocol/stream-wire.ts), and redis-py (PyPI `redis`, pinned) for the test of a
// Python reader of a run's Redis stream (test/support/python/redis_assemble_text.py). Idempotent and quick when the
// pinned versions are there; a venv with the right temporalio only gets what else is missing (never recreated under
// a test that is using it). Without python3 and its venv module it says why and exits 0, and those tests are skipped
// with the same reason.
//
// Usage: node scripts/install-python-client.mjs   (stdout: the venv's python path, or nothing; notes go to stderr)
// Plain Node ESM without dependencies, so it runs on the bootstrap Node (>= 20) before anything is built.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const TEMPORALIO_VERSION = '1.35.0';
export const REDIS_PY_VERSION = '8.1.0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const venv = join(root, '.tools', 'python-client');
const python = join(venv, 'bin', 'python');
// The temporalio version the venv was made with (its first line), then each package added since, as name==version.
const stamp = join(venv, 'durable-agent-version');
const EXTRAS = [`redis==${REDIS_PY_VERSION}`];

function log(message) {
  process.stderr.write(`install-python-client: ${message}\n`);
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: ['ignore', 2, 2] });
  return result.status === 0;
}

/** The stamp's lines, or none when there is no venv to reuse. */
function stamped() {
  return existsSync(stamp) && existsSync(python) ? readFileSync(stamp, 'utf8').trim().split('\n') : [];
}

/** Installs the extras the venv lacks and records them; false when pip failed. */
function installExtras(lines) {
  const missing = EXTRAS.filter((spec) => !lines.includes(spec));
  if (missing.length === 0) return true;
  log(`installing ${missing.join(' ')} into ${venv}`);
  if (!run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...missing])) return false;
  // Drop lines of older pins of the same packages.
  const names = new Set(missing.map((spec) => spec.split('==')[0]));
  const kept = lines.filter((line, i) => i === 0 || !names.has(line.split('==')[0]));
  writeFileSync(stamp, `${[...kept, ...missing].join('\n')}\n`);
  return true;
}

const lines = stamped();
if (lines[0] === TEMPORALIO_VERSION) {
  if (!installExtras(lines)) log('pip could not install redis-py: the Python Redis reader test will be skipped');
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
if (!installExtras([TEMPORALIO_VERSION]))
  log('pip could not install redis-py: the Python Redis reader test will be skipped');
process.stdout.write(`${python}\n`);
