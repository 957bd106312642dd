// Debian's redis-server for the drill, as the Compose file's `redis` service runs it: the service's own command
// (read from docker-compose.yml: the append-only file, noeviction) on a free loopback port in the drill's
// directory, and a fresh stream key, as an operator sets DURABLE_AGENT_STREAM_KEY.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort, startService, type Service } from './processes.js';

/** The drill's Redis: where workers and the client stream runs live. */
export interface DrillRedis {
  url: string;
  /** The stream key the workers and the client share (base64 of 32 random bytes). */
  key: string;
  version: string;
  /** The arguments of the Compose service's command that the drill kept. */
  composeArgs: string[];
  service: Service;
}

/** The `redis` service's command in docker-compose.yml (a flow sequence of quoted strings). */
export function composeRedisCommand(root: string): string[] {
  const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
  const service = /^ {2}redis:\n((?: {4}.*\n|\s*\n)+)/m.exec(compose)?.[1] ?? '';
  const command = /^ {4}command: \[(.*)\]$/m.exec(service)?.[1];
  if (!command) throw new Error('docker-compose.yml has no redis service with a `command: [...]` line.');
  return command.split(',').map((part) => part.trim().replace(/^'(.*)'$/, '$1'));
}

/** Starts redis-server as the Compose service does; resolves once it answers PING. */
export async function startRedis(root: string, dir: string, verbose: boolean): Promise<DrillRedis> {
  const executable = process.env.REDIS_SERVER_PATH || '/usr/bin/redis-server';
  const version = /v=(\d+\.\d+\.\d+)/.exec(spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout)?.[1];
  if (!version) throw new Error(`${executable} is missing: run "node scripts/install-redis.mjs" (as root).`);
  if (Number(version.split('.')[0]) < 7) throw new Error(`redis-server ${version} is too old: Compose runs redis:7.`);
  const [command, ...composeArgs] = composeRedisCommand(root);
  if (command !== 'redis-server') throw new Error(`The Compose redis service runs '${command}', not redis-server.`);
  const port = await freePort();
  const args = [...composeArgs, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--daemonize', 'no'];
  const service = startService('redis', executable, args, { verbose });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (service.child.exitCode !== null) throw new Error(`redis-server exited:\n${service.tail()}`);
    if (/Ready to accept connections/.test(service.tail())) break;
    if (Date.now() > deadline) throw new Error(`redis-server did not start within 10 s:\n${service.tail()}`);
    await delay(50);
  }
  return { url: `redis://127.0.0.1:${port}`, key: randomBytes(32).toString('base64'), version, composeArgs, service };
}
