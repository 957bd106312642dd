// A real `redis-server` per test file (Debian's package, installed by scripts/install-redis.mjs): on a free port, in
// a temporary directory, without persistence unless asked. `stop()` and `start()` again on the same port are how
// tests take Redis away mid-answer and bring it back.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A redis-server this test file started. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`, or `rediss://[:password@]localhost:<port>` with TLS. */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s); resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory (after {@link stop}). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** Keep an append-only file, so what was written survives a restart (default off: nothing persisted). */
  appendOnly?: boolean;
  /** Serve TLS only (`rediss://`), with this certificate and key (no client certificate asked for). */
  tls?: { certPath: string; keyPath: string; caPath: string };
  /** Require this password (`requirepass`): the URL carries it. */
  password?: string;
}

const executable = process.env.REDIS_SERVER_PATH || '/usr/bin/redis-server';

/** A TCP port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Starts a redis-server; resolves once it accepts connections ("Ready to accept connections" in its log). */
export async function startRedis(options: StartRedisOptions = {}): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-redis-'));
  let child: ChildProcess | undefined;

  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const listen = options.tls
        ? [
            '--port',
            '0',
            '--tls-port',
            String(port),
            '--tls-cert-file',
            options.tls.certPath,
            '--tls-key-file',
            options.tls.keyPath,
            '--tls-ca-cert-file',
            options.tls.caPath,
            '--tls-auth-clients',
            'no',
          ]
        : ['--port', String(port)];
      const args = [
        ...listen,
        ...(options.password ? ['--requirepass', options.password] : []),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        options.appendOnly ? 'yes' : 'no',
        '--daemonize',
        'no',
        '--loglevel',
        'notice',
      ];
      const proc = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      let output = '';
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`redis-server did not start within 10 s on port ${port}:\n${output}`));
      }, 10_000);
      proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      proc.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`Could not start ${executable} (run "node scripts/install-redis.mjs"): ${error.message}`));
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code} before it was ready:\n${output}`));
      });
    });

  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const killer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };

  await start();
  return {
    url: `${options.tls ? 'rediss' : 'redis'}://${options.password ? `:${encodeURIComponent(options.password)}@` : ''}${
      options.tls ? 'localhost' : '127.0.0.1'
    }:${port}`,
    port,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
