// Replay fixtures are release fixtures: each released workflow version has a folder of recorded histories under
// test/fixtures/histories/<version>/ with a SHA256SUMS manifest. A committed fixture is never re-recorded or
// edited (runs recorded by a released workflow must keep replaying); new scenarios add new files.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the per-version fixture folders live. */
export const HISTORIES_DIR = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));

/** The package version: new fixtures are recorded into its folder. */
export function currentVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `v${pkg.version}`;
}

/** Version folders, oldest first. */
export function fixtureVersions(): string[] {
  return readdirSync(HISTORIES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^v\d+\.\d+\.\d+$/.test(entry.name))
    .map((entry) => entry.name)
    .sort((a, b) => compareVersions(a, b));
}

/** The history files of one version folder. */
export function fixtureFiles(version: string): string[] {
  return readdirSync(`${HISTORIES_DIR}${version}`)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

/** The manifest of a version folder: file name → sha256 hex. */
export function readManifest(version: string): Map<string, string> {
  const path = `${HISTORIES_DIR}${version}/SHA256SUMS`;
  const manifest = new Map<string, string>();
  if (!existsSync(path)) return manifest;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line.trim());
    if (match) manifest.set(match[2]!, match[1]!);
  }
  return manifest;
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function compareVersions(a: string, b: string): number {
  const pa = a.slice(1).split('.').map(Number);
  const pb = b.slice(1).split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
  return 0;
}
