// docker-compose.yml validated by a real Compose implementation (Debian's docker-compose, which needs no daemon
// for `config`): the file parses, every service has what the stack needs, variables are substituted as the
// comments say, the live stream's key has no default (Compose refuses to run without it), and a broken copy is
// rejected (so the check can fail). scripts/install-compose.mjs, run by
// `npm test`, installs it where it can; elsewhere this test is skipped and says why.
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const compose = spawnSync('sh', ['-c', 'command -v docker-compose'], { encoding: 'utf8' }).stdout.trim();
const execFileAsync = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'durable-agent-compose-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The live stream's key, which the file requires from the environment (it has no default). */
const STREAM_KEY = 'compose-test-stream-key-0123456789';

/**
 * `docker-compose config` on `file` in a directory of its own (no stray .env; Compose reads `.env` from the project
 * directory), with exactly `env` (by default the stream key alone).
 */
async function config(
  file: string,
  env: Record<string, string> = { DURABLE_AGENT_STREAM_KEY: STREAM_KEY },
  project = dir,
): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await execFileAsync(compose, ['--project-directory', project, '-f', file, 'config'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    });
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, out: `${failed.stdout}${failed.stderr}` };
  }
}

/** The block of one service in `config` output (its indented lines). */
function service(out: string, name: string): string {
  const match = new RegExp(`^  ${name}:\\n((?:    .*\\n)+)`, 'm').exec(out);
  expect(match, `service ${name} in:\n${out}`).not.toBeNull();
  return match![1]!;
}

const skipReason = compose
  ? ''
  : ' (skipped: docker-compose is not installed; `node scripts/install-compose.mjs` installs it as root with apt)';

describe.skipIf(!compose)(`docker-compose.yml${skipReason}`, () => {
  it('is a valid Compose file: Temporal on PostgreSQL, its Web UI, Redis and the worker, started in order', async () => {
    const { code, out } = await config(COMPOSE_FILE);
    expect(code, out).toBe(0);
    const postgres = service(out, 'postgresql');
    expect(postgres).toMatch(/image: postgres:16\n/);
    expect(postgres).toContain('pg_isready -U temporal');

    const temporal = service(out, 'temporal');
    expect(temporal).toMatch(/image: temporalio\/auto-setup:1\.29\.1\n/);
    expect(temporal).toMatch(/depends_on:\n\s+postgresql:\n\s+condition: service_healthy/);
    expect(temporal).toMatch(/DB: postgres12\n/);
    expect(temporal).toMatch(/published: 7233\n\s+target: 7233/);
    // `$$` keeps the variable for the container's shell, not Compose.
    expect(temporal).toContain('temporal operator namespace describe --namespace "$${DEFAULT_NAMESPACE}"');

    const ui = service(out, 'temporal-ui');
    expect(ui).toMatch(/condition: service_healthy/);
    expect(ui).toMatch(/published: 8080\n\s+target: 8080/);

    const worker = service(out, 'worker');
    expect(worker).toMatch(/build:\n\s+context: /);
    expect(worker).toMatch(/TEMPORAL_ADDRESS: temporal:7233\n/);
    expect(worker).toMatch(/restart: unless-stopped/);
    expect(out).toMatch(/^volumes:\n {2}postgres-data: \{\}\n {2}redis-data: \{\}/m);
  });

  it("has Redis 7 for runs' live streams, wired to the worker, kept across restarts, reachable from the host only", async () => {
    const { code, out } = await config(COMPOSE_FILE);
    expect(code, out).toBe(0);
    const redis = service(out, 'redis');
    expect(redis).toMatch(/image: redis:7\n/);
    expect(redis).toMatch(
      /command:\n\s+- redis-server\n\s+- --appendonly\n\s+- "yes"\n\s+- --maxmemory-policy\n\s+- noeviction\n/,
    );
    expect(redis).toMatch(/- redis-data:\/data/);
    // The host's loopback only: whoever reaches Redis can read runs' text (entries are authenticated, not secret).
    expect(redis).toMatch(/ports:\n\s+- 127\.0\.0\.1:6379:6379\/tcp\n/);
    expect(redis).toMatch(/test:\n\s+- CMD\n\s+- redis-cli\n\s+- ping\n/);

    const worker = service(out, 'worker');
    expect(worker).toMatch(/depends_on:\n(?:\s+.*\n)*?\s+redis:\n\s+condition: service_started\n/);
    expect(worker).toMatch(/DURABLE_AGENT_REDIS_URL: redis:\/\/redis:6379\n/);
    expect(worker).toMatch(new RegExp(`DURABLE_AGENT_STREAM_KEY: ${STREAM_KEY}\\n`));

    // A managed Redis instead, from the host's environment.
    const managed = await config(COMPOSE_FILE, {
      DURABLE_AGENT_STREAM_KEY: STREAM_KEY,
      DURABLE_AGENT_REDIS_URL: 'rediss://agent:secret@redis.example.com:6380',
    });
    expect(service(managed.out, 'worker')).toMatch(
      /DURABLE_AGENT_REDIS_URL: rediss:\/\/agent:secret@redis\.example\.com:6380\n/,
    );
  });

  it('ships no stream key: without DURABLE_AGENT_STREAM_KEY, Compose refuses and says how to set it', async () => {
    expect(readFileSync(COMPOSE_FILE, 'utf8')).not.toMatch(/DURABLE_AGENT_STREAM_KEY=\$\{DURABLE_AGENT_STREAM_KEY:?-/);
    const none = await config(COMPOSE_FILE, {});
    expect(none.code).not.toBe(0);
    expect(none.out).toMatch(/set DURABLE_AGENT_STREAM_KEY \(openssl rand -base64 32\) in the shell or \.env/);
    // An .env file beside the Compose file is where the key can live (gitignored, and kept out of the image).
    const project = mkdtempSync(join(dir, 'project-'));
    copyFileSync(COMPOSE_FILE, join(project, 'docker-compose.yml'));
    writeFileSync(join(project, '.env'), `DURABLE_AGENT_STREAM_KEY=${STREAM_KEY}-from-env-file\n`);
    const fromFile = await config(join(project, 'docker-compose.yml'), {}, project);
    expect(fromFile.code, fromFile.out).toBe(0);
    expect(service(fromFile.out, 'worker')).toMatch(
      new RegExp(`DURABLE_AGENT_STREAM_KEY: ${STREAM_KEY}-from-env-file\\n`),
    );
    for (const ignore of ['.gitignore', '.dockerignore']) {
      expect(readFileSync(join(ROOT, ignore), 'utf8').split('\n'), ignore).toContain('.env');
    }
  });

  it('takes the namespace and the model settings from the environment, as its comments say', async () => {
    const plain = await config(COMPOSE_FILE);
    // Unset on the host: passed as unset (null), not as empty strings.
    expect(service(plain.out, 'worker')).toMatch(/OPENAI_API_KEY: null\n/);
    expect(service(plain.out, 'temporal')).toMatch(/DEFAULT_NAMESPACE: default\n/);

    const set = await config(COMPOSE_FILE, {
      DURABLE_AGENT_STREAM_KEY: STREAM_KEY,
      TEMPORAL_NAMESPACE: 'agents',
      OPENAI_API_KEY: 'sk-test',
      AGENT_MODEL: 'openai/gpt-4o',
    });
    expect(set.code, set.out).toBe(0);
    expect(service(set.out, 'temporal')).toMatch(/DEFAULT_NAMESPACE: agents\n/);
    expect(service(set.out, 'temporal-ui')).toMatch(/TEMPORAL_DEFAULT_NAMESPACE: agents\n/);
    const worker = service(set.out, 'worker');
    expect(worker).toMatch(/TEMPORAL_NAMESPACE: agents\n/);
    expect(worker).toMatch(/OPENAI_API_KEY: sk-test\n/);
    expect(worker).toMatch(/AGENT_MODEL: openai\/gpt-4o\n/);
  });

  it('rejects a broken copy, so this check can fail', async () => {
    const broken = join(dir, 'broken.yml');
    copyFileSync(COMPOSE_FILE, broken);
    writeFileSync(broken, readFileSync(broken, 'utf8').replace('    restart: unless-stopped', '    restart: [oops'));
    expect((await config(broken)).code).not.toBe(0);
    const unknownKey = join(dir, 'unknown-key.yml');
    writeFileSync(
      unknownKey,
      readFileSync(COMPOSE_FILE, 'utf8').replace('    image: postgres:16', '    imgae: postgres:16'),
    );
    const result = await config(unknownKey);
    expect(result.code).not.toBe(0);
    expect(result.out).toMatch(/imgae/);
  });
});
