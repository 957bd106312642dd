// Previous releases of durable-agent, built from their git commits for the upgrade test. The manifest
// (test/fixtures/upgrade/releases.json) maps each release to a commit of main; a release is materialized once per
// checkout into the OS temp dir with `git archive` (its src/, workflows/, activities/ and package files) and runs on
// this checkout's node_modules through a symlink, unless its pinned dependencies differ from what is installed here:
// then it gets its own `npm ci` from its own lockfile.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout this test runs in. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MANIFEST = 'test/fixtures/upgrade/releases.json';
/** What a release's worker needs: its library, workflow and activity code, and its dependency pins. */
const RELEASE_PATHS = ['src', 'workflows', 'activities', 'package.json', 'package-lock.json'];
/**
 * Written into every materialized release: the packages the upgrade worker script itself uses, resolved from the
 * release's own node_modules, so the script and the release's code share one copy of each.
 */
export const RELEASE_DEPS_MODULE = 'upgrade-deps.mjs';
const DEPS_SOURCE = "export * from '@temporalio/worker';\nexport { z } from 'zod';\n";

/** One previous release: its version and the commit of main it was cut from. */
export interface PreviousRelease {
  version: string;
  commit: string;
}

/** The releases in the manifest, in its order (oldest first). */
export function previousReleases(): PreviousRelease[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, MANIFEST), 'utf8')) as Record<string, unknown>;
  return Object.entries(manifest).map(([version, commit]) => {
    if (!/^v\d+\.\d+\.\d+$/.test(version) || typeof commit !== 'string' || !/^[0-9a-f]{40}$/.test(commit)) {
      throw new Error(
        `${MANIFEST}: each entry maps "vX.Y.Z" to a full 40-hex commit id (got ${version}: ${JSON.stringify(commit)})`,
      );
    }
    return { version, commit };
  });
}

/**
 * The directory holding `release`'s sources, ready to run (created on first use, then reused). Throws, saying how to
 * fix it, when the commit is not in this clone (a shallow clone lacks it).
 */
export function materializeRelease(release: PreviousRelease): string {
  const dir = join(cacheRoot(), `${release.version}-${release.commit.slice(0, 12)}`);
  if (existsSync(join(dir, RELEASE_DEPS_MODULE))) return dir;
  assertReachable(release);
  // Built beside its final place and renamed into it, so a run that stopped half way never leaves a broken copy
  // and two processes building the same release at once both end with a complete one.
  const building = `${dir}.building-${process.pid}-${Date.now()}`;
  mkdirSync(building, { recursive: true });
  try {
    const tar = execFileSync('git', ['-C', ROOT, 'archive', '--format=tar', release.commit, '--', ...RELEASE_PATHS], {
      maxBuffer: 512 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', building], { input: tar });
    const differing = differingDependencies(building);
    if (differing.length === 0) {
      symlinkSync(join(ROOT, 'node_modules'), join(building, 'node_modules'), 'dir');
    } else {
      console.warn(
        `${release.version} pins other dependency versions than this checkout (${differing.join(', ')}): npm ci`,
      );
      execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: building,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    }
    writeFileSync(join(building, RELEASE_DEPS_MODULE), DEPS_SOURCE);
    try {
      renameSync(building, dir);
    } catch (error) {
      if (!existsSync(join(dir, RELEASE_DEPS_MODULE))) throw error;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

/** Whether `release`'s commit has `path` (false when the commit is not in this clone: materializing it says why). */
export function releaseHasFile(release: PreviousRelease, path: string): boolean {
  try {
    execFileSync('git', ['-C', ROOT, 'cat-file', '-e', `${release.commit}:${path}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Per checkout: a materialized release links to this checkout's node_modules. */
function cacheRoot(): string {
  const checkout = createHash('sha256').update(realpathSync(ROOT)).digest('hex').slice(0, 12);
  return join(tmpdir(), 'durable-agent-releases', checkout);
}

function assertReachable({ version, commit }: PreviousRelease): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    git('cat-file', '-e', `${commit}^{commit}`);
    return;
  } catch {
    // Not here: say why below.
  }
  let shallow: boolean;
  try {
    shallow = git('rev-parse', '--is-shallow-repository') === 'true';
  } catch {
    throw new Error(
      `The upgrade test builds ${version} from commit ${commit} (${MANIFEST}), but ${ROOT} is not a git clone. ` +
        'Run the test in a clone of the repository.',
    );
  }
  throw new Error(
    `The upgrade test builds ${version} from commit ${commit} (${MANIFEST}), which this clone does not have` +
      (shallow
        ? ': it is a shallow clone. Fetch the full history with `git fetch --unshallow` (or clone without --depth).'
        : ". Fetch main's history (`git fetch origin main`), or check the manifest's commit id."),
  );
}

/** `name@pinned (here: installed)` for each of the release's dependencies installed here at another version. */
function differingDependencies(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  return Object.entries(pkg.dependencies ?? {}).flatMap(([name, pinned]) => {
    const installed = installedVersion(name);
    return installed === pinned ? [] : [`${name}@${pinned} (here: ${installed ?? 'missing'})`];
  });
}

function installedVersion(name: string): string | undefined {
  const path = join(ROOT, 'node_modules', name, 'package.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version : undefined;
}
