// Debian's PostgreSQL for the drill: a throwaway cluster in the drill's directory, on a free loopback port, with
// the user and password the Compose file gives the postgres container (temporal/temporal). PostgreSQL refuses to
// run as root, so as root the cluster belongs to the `postgres` system user.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, run } from './processes.js';

/** A running PostgreSQL cluster. */
export interface Postgres {
  port: number;
  user: string;
  password: string;
  version: string;
  stop(): Promise<void>;
}

const USER = 'temporal';
const PASSWORD = 'temporal';

/** The newest Debian PostgreSQL server installed (`/usr/lib/postgresql/<v>/bin`), installing it with apt if needed. */
export async function findPostgres(): Promise<{ bin: string; version: string }> {
  const find = () => {
    const base = '/usr/lib/postgresql';
    const versions = existsSync(base)
      ? readdirSync(base)
          .filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl')))
          .sort((a, b) => Number(b) - Number(a))
      : [];
    return versions[0] ? { bin: join(base, versions[0], 'bin'), version: versions[0] } : undefined;
  };
  const found = find();
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error('PostgreSQL is not installed: apt-get install postgresql (as root).');
  await run('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const installed = find();
  if (!installed) throw new Error('apt-get installed postgresql, but no /usr/lib/postgresql/<v>/bin/pg_ctl exists.');
  return installed;
}

/** Creates and starts a cluster under `dir`. */
export async function startPostgres(dir: string): Promise<Postgres> {
  const { bin, version } = await findPostgres();
  const data = join(dir, 'pgdata');
  const sockets = join(dir, 'pgsockets');
  mkdirSync(sockets, { recursive: true });
  const passwordFile = join(dir, 'pgpassword');
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    for (const path of [dir, sockets, passwordFile]) chownSync(path, uid, gid);
    chmodSync(dir, 0o700);
  }
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { quiet: true })
      : run(join(bin, tool), args, { quiet: true });
  await pg('initdb', [
    '-D',
    data,
    '-U',
    USER,
    `--pwfile=${passwordFile}`,
    '--auth-host=scram-sha-256',
    '--auth-local=trust',
  ]);
  const port = await freePort();
  await pg('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'postgres.log'),
    '-w',
    '-o',
    `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    'start',
  ]);
  return {
    port,
    user: USER,
    password: PASSWORD,
    version,
    stop: async () => {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', 'postgres'], { quiet: true })).trim());
  const gid = Number((await run('id', ['-g', 'postgres'], { quiet: true })).trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('There is no postgres system user.');
  return { uid, gid };
}
