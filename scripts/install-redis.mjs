#!/usr/bin/env node
// Makes `redis-server` (Redis 7 or later) available for the tests of the Redis live stream (test/support/redis.ts),
// from Debian's `redis-server` package, as install-chromium.mjs does for Chromium. Idempotent and fast when present:
// a working redis-server (or REDIS_SERVER_PATH) is only checked. Installing needs root and apt-get (Debian, Ubuntu);
// elsewhere it says what to do. The package's own service is not started here: the tests start their own servers.
//
// Usage: node scripts/install-redis.mjs   (stdout: the executable path; progress goes to stderr)
// Plain Node ESM without dependencies, so it runs on the bootstrap Node (>= 20) before anything is built.
import { spawnSync } from 'node:child_process';
import process from 'node:process';

const executablePath = process.env.REDIS_SERVER_PATH || '/usr/bin/redis-server';
/** The live stream reads with XREAD and trims with XADD's MINID/MAXLEN: Redis 7 has everything it uses. */
const MIN_MAJOR = 7;

/** Progress goes to stderr: stdout carries only the executable path. */
function log(message) {
  process.stderr.write(`install-redis: ${message}\n`);
}

/** The version the executable reports ("Redis server v=7.0.15 sha=…"), or undefined. */
function installedVersion() {
  const result = spawnSync(executablePath, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) return undefined;
  return /v=(\d+\.\d+\.\d+)/.exec(result.stdout)?.[1];
}

function recentEnough(version) {
  return version !== undefined && Number(version.split('.')[0]) >= MIN_MAJOR;
}

/** Runs apt-get with `args`; returns its exit status. */
function aptGet(args) {
  log(`apt-get ${args.join(' ')}`);
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 2, 2],
    // RUNLEVEL=1 keeps the package's post-install script from starting a system-wide server on port 6379.
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', RUNLEVEL: '1' },
  });
  if (result.error && result.error.code === 'ENOENT') {
    throw new Error(
      'apt-get is not available. Install Redis 7 or later with your system package manager, or set ' +
        'REDIS_SERVER_PATH to a redis-server executable.',
    );
  }
  return result.status ?? 1;
}

function main() {
  const before = installedVersion();
  if (recentEnough(before)) {
    log(`redis-server ${before} already installed at ${executablePath}`);
  } else {
    if (process.env.REDIS_SERVER_PATH) {
      throw new Error(
        `REDIS_SERVER_PATH=${executablePath} ${before ? `is Redis ${before}; ${MIN_MAJOR} or later is needed` : 'does not run'}.`,
      );
    }
    if (typeof process.getuid === 'function' && process.getuid() !== 0) {
      throw new Error(
        'redis-server is missing and installing it needs root: run "sudo apt-get install -y redis-server", or ' +
          'set REDIS_SERVER_PATH to a redis-server executable (Redis 7 or later).',
      );
    }
    // The package index may be stale in a fresh container: refresh it once when the install fails.
    let status = aptGet(['install', '-y', '--no-install-recommends', 'redis-server']);
    if (status !== 0 && aptGet(['update']) === 0) {
      status = aptGet(['install', '-y', '--no-install-recommends', 'redis-server']);
    }
    const after = installedVersion();
    if (status !== 0 || !recentEnough(after)) {
      throw new Error(
        `apt-get could not install redis-server ${MIN_MAJOR} or later (exit status ${status}, found ` +
          `${after ?? 'none'}). Run "apt-get update && apt-get install -y redis-server" and read its output, or ` +
          'set REDIS_SERVER_PATH to a redis-server executable.',
      );
    }
    log(`installed redis-server ${after}`);
  }
  process.stdout.write(`${executablePath}\n`);
}

try {
  main();
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
