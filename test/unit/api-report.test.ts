// The committed API report (api/*.api.md) must describe the sources as they are, so a change to the public surface
// is visible in review: change an export, run `npm run api`, commit the report with the change.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { API_DIR, renderApiReports } from '../../scripts/api-report.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('API report', () => {
  // Compiling the entries and everything they import takes a few seconds, more on a busy machine.
  it('api/ matches the public entries in package.json "exports" (run `npm run api` to update it)', () => {
    const expected = renderApiReports();
    const committed = readdirSync(join(ROOT, API_DIR)).map((name) => join(API_DIR, name));
    expect(committed.sort(), 'api/ holds one report per entry; run `npm run api`').toEqual([...expected.keys()].sort());
    for (const [path, text] of expected) {
      expect(readFileSync(join(ROOT, path), 'utf8'), `${path} is out of date: run \`npm run api\``).toBe(text);
    }
  }, 180_000);
});
