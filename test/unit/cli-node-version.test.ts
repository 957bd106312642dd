// The CLI launcher checks the Node version before it loads anything: on a Node older than the package supports, it
// says which Node it found, which one is needed and how to get it, instead of dying in tsx or a dependency.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT_NODE_ENGINE } from '../../src/cli/init/init-project.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = fileURLToPath(new URL('../../bin/durable-agent.mjs', import.meta.url));
const SYSTEM_NODE = '/usr/bin/node';

const engines = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }
).engines.node;

/** The launcher's MINIMUM_NODE, read from its source. */
function launcherMinimum(): string {
  const match = /const MINIMUM_NODE = \[(\d+), (\d+)\];/.exec(readFileSync(LAUNCHER, 'utf8'));
  if (!match) throw new Error('bin/durable-agent.mjs has no MINIMUM_NODE');
  return `${match[1]}.${match[2]}`;
}

function tooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const [needMajor = 0, needMinor = 0] = launcherMinimum().split('.').map(Number);
  return major < needMajor || (major === needMajor && minor < needMinor);
}

function launch(node: string, nodeArgs: string[] = []) {
  return spawnSync(node, [...nodeArgs, LAUNCHER, 'help'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

function expectRefusal(result: ReturnType<typeof launch>, found: string) {
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(
    `durable-agent needs Node.js ${launcherMinimum()} or newer, but this is Node.js ${found}`,
  );
  expect(result.stderr).toContain('nvm install --lts');
  expect(result.stderr).toContain('fnm install --lts');
  expect(result.stderr).toContain('volta install node@lts');
  expect(result.stderr).toContain('https://nodejs.org/en/download');
  // Nothing else was loaded: no tsx, no stack.
  expect(result.stderr).not.toMatch(/tsx|\n\s+at /);
}

describe('the Node version check of bin/durable-agent.mjs', () => {
  it('requires what package.json and the generated project declare', () => {
    expect(engines).toBe(`>=${launcherMinimum()}`);
    expect(PROJECT_NODE_ENGINE).toBe(engines);
  });

  const systemNode = existsSync(SYSTEM_NODE)
    ? execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim()
    : '';
  it.skipIf(!systemNode || !tooOld(systemNode))(
    `refuses the system Node (${systemNode || 'none'}) and says how to get one`,
    () => {
      expectRefusal(launch(SYSTEM_NODE), systemNode.replace(/^v/, ''));
    },
  );

  it('refuses any older version it reports (Node 14 reporting itself)', () => {
    // The running Node, made to report 14.21.3 before the launcher loads.
    const pretend = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'14.21.3'})`;
    expectRefusal(launch(process.execPath, ['--import', pretend]), '14.21.3');
  });

  it('runs the CLI on a supported Node', () => {
    expect(tooOld(process.versions.node)).toBe(false);
    const result = launch(process.execPath);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npx durable-agent <command>/);
  });
});
