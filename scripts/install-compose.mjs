#!/usr/bin/env node
// Makes a Compose implementation available for the test that validates docker-compose.yml
// (test/ops/compose.test.ts): Debian's `docker-compose` package validates a file with `docker-compose config`
// without a Docker daemon. Idempotent and quick when it is already there. Installs only where that is possible
// and allowed (apt-get present, running as root, DURABLE_AGENT_NO_APT unset); otherwise it says why and exits 0,
// and the test is skipped with the same reason.
//
// Usage: node scripts/install-compose.mjs   (stdout: the docker-compose path, or nothing; notes go to stderr)
// Plain Node ESM without dependencies, so it runs on the bootstrap Node (>= 20) before anything is built.
import { spawnSync } from 'node:child_process';
import process from 'node:process';

/** Notes go to stderr: stdout carries only the path. */
function log(message) {
  process.stderr.write(`install-compose: ${message}\n`);
}

/** The docker-compose on PATH, or undefined. */
function findCompose() {
  const result = spawnSync('sh', ['-c', 'command -v docker-compose'], { encoding: 'utf8' });
  const path = result.stdout.trim();
  return result.status === 0 && path ? path : undefined;
}

/** Why apt cannot be used here, or undefined when it can. */
function aptUnavailable() {
  if (process.env.DURABLE_AGENT_NO_APT) return 'DURABLE_AGENT_NO_APT is set';
  if (process.platform !== 'linux') return `this is ${process.platform}, not Debian`;
  if (spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status !== 0)
    return 'apt-get is not available';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'installing needs root';
  return undefined;
}

function apt(args) {
  log(`apt-get ${args.join(' ')}`);
  // apt's own output goes to stderr, so that stdout carries only the path.
  const result = spawnSync('apt-get', args, {
    stdio: ['ignore', 2, 2],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

function main() {
  let path = findCompose();
  if (!path) {
    const why = aptUnavailable();
    if (why) {
      log(`docker-compose is not installed and will not be (${why}); the compose validation test will be skipped.`);
      return;
    }
    // Without package lists (a fresh machine) the install fails: update them once and try again.
    const install = ['install', '-y', '--no-install-recommends', 'docker-compose'];
    if (!apt(install) && !(apt(['update']) && apt(install))) {
      log('apt-get could not install docker-compose; the compose validation test will be skipped.');
      return;
    }
    path = findCompose();
  }
  if (path) process.stdout.write(`${path}\n`);
}

main();
