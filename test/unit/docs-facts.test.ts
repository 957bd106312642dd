// What the docs say about this repository and the generated project holds: the number of the template's tests, the
// CLI commands the README lists, the Hono adapter on Node, and no link from the generated README to a registry page
// that may not exist.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { initCommand } from '../../src/cli/init/init-command.js';
import { COMMANDS } from '../../src/cli/usage.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** The template's tests: its `it(` calls (it has no loops or `it.each`, which this would miss). */
function templateTests(): number {
  const dir = join(ROOT, 'templates', 'project', 'test');
  const files = readdirSync(dir).filter((name) => name.endsWith('.test.ts'));
  const source = files.map((name) => readFileSync(join(dir, name), 'utf8')).join('\n');
  expect(source).not.toMatch(/\bit\.each|\bfor \(/);
  return source.match(/^\s*it\(/gm)?.length ?? 0;
}

describe('the docs hold', () => {
  it("say how many tests the generated project has: the README, the template's README and init's output", () => {
    const count = NUMBERS[templateTests()]!;
    expect(read('README.md')).toContain(`\`npm test\` runs\nits ${count} tests`);
    expect(read('templates/project/README.md')).toContain(`npm test           # ${count} tests:`);
    let printed = '';
    // A throwaway folder: init writes the project, the output says what npm test runs.
    const dir = mkdtempSync(join(tmpdir(), 'docs-facts-'));
    try {
      initCommand(join(dir, 'my-agent'), false, (line) => (printed += `${line}\n`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(printed).toContain(`npm test      # ${count} tests:`);
  });

  it('the README lists every CLI command', () => {
    const readme = read('README.md');
    const listing = readme.slice(readme.indexOf('The same from a shell, with the CLI'), readme.indexOf('### People'));
    for (const name of Object.keys(COMMANDS).filter((command) => command !== 'help')) {
      // `name …`, or one of `approve|deny …`.
      expect(listing, name).toMatch(new RegExp(`\`([a-z]+\\|)*${name}(\\|[a-z]+)*[\\s\`]`));
    }
  });

  it('the generated README links to no registry page (the package may not be published under that name)', () => {
    const readme = read('templates/project/README.md');
    expect(readme).not.toMatch(/npmjs\.(com|org)/);
    expect(readme).toContain('node_modules/durable-agent/README.md');
  });

  it('where docs/web.md serves Hono, it says Node needs @hono/node-server', () => {
    const web = read('docs/web.md');
    expect(web).toContain("import { Hono } from 'hono';");
    expect(web).toContain("import { serve } from '@hono/node-server';");
    expect(web).toMatch(/on Node,\s+Hono needs its adapter, `@hono\/node-server`/);
  });
});
