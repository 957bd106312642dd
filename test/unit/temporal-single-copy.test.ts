import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowsPath as agentWorkflowsPath } from '../../src/worker/workflow-paths.js';
import { bundleWorkflows } from '../support/temporal.js';

// Every @temporalio package once, at the version package.json pins, with no `overrides` block: a package that pins
// other @temporalio versions (as `@temporalio/workflow-streams` 1.23.0 pinned 1.23.0) makes npm nest a second copy,
// which no overrides block of ours can prevent in a user's project. Two copies of @temporalio/workflow in one bundle
// would register handlers on a second workflow runtime that never runs, and two of @temporalio/common break
// `instanceof` on failures. The run's stream speaks Workflow Streams' wire protocol itself (src/protocol/stream-wire.ts).
const root = join(import.meta.dirname, '..', '..');

function nestedTemporalDirs(dir: string, depth = 0): string[] {
  if (depth > 6 || !existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.name === 'node_modules') {
      if (depth > 0 && existsSync(join(path, '@temporalio'))) found.push(join(path, '@temporalio'));
      found.push(...nestedTemporalDirs(path, depth + 1));
    } else if (depth > 0 || entry.name.startsWith('@')) {
      found.push(...nestedTemporalDirs(path, depth + 1));
    }
  }
  return found;
}

describe('one copy of each @temporalio package', () => {
  it('the lockfile resolves every @temporalio package once, at the version package.json pins', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies['@temporalio/workflow'];
    const paths = Object.keys(lock.packages).filter((path) => /(^|\/)node_modules\/@temporalio\//.test(path));
    expect(paths.filter((path) => path.lastIndexOf('node_modules/') > 0)).toEqual([]);
    for (const path of paths) {
      expect({ path, version: lock.packages[path]!.version }).toEqual({ path, version: pinned });
    }
  });

  it('package.json needs no overrides block for it', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { overrides?: unknown };
    expect(manifest.overrides).toBeUndefined();
  });

  it('node_modules has no nested @temporalio folder', () => {
    expect(nestedTemporalDirs(join(root, 'node_modules'))).toEqual([]);
  });

  it('the agent workflow bundle holds a single @temporalio/workflow', async () => {
    const { code } = await bundleWorkflows(agentWorkflowsPath());
    // Webpack names each module by its path; a second copy would sit under a nested node_modules.
    expect(code).toContain('@temporalio/workflow/lib/');
    expect(code).not.toMatch(/node_modules\/@temporalio\/[a-z-]+\/node_modules\//);
    expect(code).not.toMatch(/node_modules\/[^"'\s]*\/node_modules\/@temporalio\//);
  }, 120_000);
});
