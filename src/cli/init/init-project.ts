// `durable-agent init <dir>`: copies the project template shipped with this package (templates/project) and writes
// its package.json, pinning durable-agent and the tools the template uses at the exact versions this release was
// built and tested with.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { packageRoot } from '../../worker/temporal-cli.js';
import { CliFailure } from '../errors/cli-failure.js';

/** The Node versions the generated project declares: what the AI SDK and this package need. */
export const PROJECT_NODE_ENGINE = '>=22.12';

/** What {@link initProject} wrote. */
export interface InitResult {
  /** Absolute path of the project. */
  dir: string;
  /** Files written, relative to `dir`. */
  written: string[];
  /** Files that already existed and were kept (only with `force`). */
  kept: string[];
}

interface Manifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * Writes a new project into `dir` (created when absent). Refuses a directory that has files unless `force`, and
 * never overwrites a file.
 *
 * @throws CliFailure when `dir` is a file, or not empty without `force`.
 */
export function initProject(dir: string, options: { force?: boolean } = {}): InitResult {
  const target = resolve(dir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) throw new CliFailure(`${target} is a file; give a directory to create.`);
    if (readdirSync(target).length > 0 && !options.force) {
      throw new CliFailure(`${target} is not empty. Give a new directory, or add --force to add the missing files.`);
    }
  }
  const root = packageRoot();
  const template = join(root, 'templates', 'project');
  const result: InitResult = { dir: target, written: [], kept: [] };
  const place = (relativePath: string, write: (path: string) => void) => {
    const path = join(target, relativePath);
    if (existsSync(path)) {
      result.kept.push(relativePath);
      return;
    }
    mkdirSync(join(path, '..'), { recursive: true });
    write(path);
    result.written.push(relativePath);
  };
  for (const file of listFiles(template)) {
    // npm drops .gitignore files from published packages, so the template ships it as _gitignore.
    const name = relative(template, file).replace(/(^|[\\/])_gitignore$/, '$1.gitignore');
    place(name, (path) => copyFileSync(file, path));
  }
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  place('package.json', (path) =>
    writeFileSync(path, `${JSON.stringify(projectManifest(basename(target), manifest), null, 2)}\n`),
  );
  return result;
}

/** The generated project's package.json: exact versions of what this release was tested with. */
export function projectManifest(name: string, ours: Manifest): Record<string, unknown> {
  const pinned = (pkg: string) => pinnedVersion(ours, pkg);
  return {
    name:
      name
        .toLowerCase()
        .replace(/[^a-z0-9-_.]/g, '-')
        .replace(/^[-_.]+/, '') || 'my-agent',
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: PROJECT_NODE_ENGINE },
    scripts: {
      start: 'tsx src/start.ts',
      dev: 'durable-agent dev src/agents.ts',
      worker: 'tsx src/worker.ts',
      client: 'tsx src/client.ts',
      test: 'vitest run',
      typecheck: 'tsc',
    },
    dependencies: { 'durable-agent': ours.version ?? 'latest', zod: pinned('zod') },
    devDependencies: {
      '@types/node': pinned('@types/node'),
      tsx: pinned('tsx'),
      typescript: pinned('typescript'),
      vitest: pinned('vitest'),
    },
    // npm 11 asks before running install scripts: these are the ones the Temporal worker and tsx depend on.
    allowScripts: { esbuild: true, '@swc/core': true, protobufjs: true },
  };
}

function pinnedVersion(ours: Manifest, pkg: string): string {
  const version = ours.dependencies?.[pkg] ?? ours.devDependencies?.[pkg];
  if (!version) throw new Error(`durable-agent's package.json does not pin ${pkg}; the project template needs it.`);
  return version;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : [path];
  });
}
