// docker-compose.yml validated by a real Compose implementation (Debian's docker-compose, which needs no daemon
// for `config`): the file parses, every service has what the stack needs, variables are substituted as the
// comments say, and a broken copy is rejected (so the check can fail). scripts/install-compose.mjs, run by
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

/** `docker-compose config` on `file` in a directory of its own (no stray .env), with exactly `env`. */
async function config(file: string, env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await execFileAsync(compose, ['--project-directory', dir, '-f', file, 'config'], {
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
  it('is a valid Compose file: Temporal on PostgreSQL, its Web UI and the worker, started in order', async () => {
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
    expect(out).toMatch(/^volumes:\n {2}postgres-data: \{\}/m);
  });

  it('takes the namespace and the model settings from the environment, as its comments say', async () => {
    const plain = await config(COMPOSE_FILE);
    // Unset on the host: passed as unset (null), not as empty strings.
    expect(service(plain.out, 'worker')).toMatch(/OPENAI_API_KEY: null\n/);
    expect(service(plain.out, 'temporal')).toMatch(/DEFAULT_NAMESPACE: default\n/);

    const set = await config(COMPOSE_FILE, {
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
