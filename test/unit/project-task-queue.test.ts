// A project's task queue: TEMPORAL_TASK_QUEUE, else the nearest package.json name, else durable-agent.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectTaskQueue, resolveProjectTaskQueue } from '../../src/connection/project-task-queue.js';

/** A folder under tmp with `files` (relative path → contents). */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'task-queue-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('projectTaskQueue', () => {
  it("is the name in the project's package.json, from the project or any folder in it", () => {
    const dir = folder({ 'package.json': '{ "name": "@acme/shop", "type": "module" }', 'src/agents.ts': '' });
    expect(projectTaskQueue({ dir, env: {} })).toBe('@acme/shop');
    expect(resolveProjectTaskQueue({ dir: join(dir, 'src'), env: {} })).toEqual({
      taskQueue: '@acme/shop',
      source: { kind: 'package.json', path: join(dir, 'package.json') },
    });
  });

  it('looks past a package.json without a name', () => {
    const dir = folder({ 'package.json': '{ "name": "shop" }', 'src/package.json': '{ "type": "module" }' });
    expect(projectTaskQueue({ dir: join(dir, 'src'), env: {} })).toBe('shop');
  });

  it('TEMPORAL_TASK_QUEUE overrides it', () => {
    const dir = folder({ 'package.json': '{ "name": "shop" }' });
    expect(resolveProjectTaskQueue({ dir, env: { TEMPORAL_TASK_QUEUE: 'orders' } })).toEqual({
      taskQueue: 'orders',
      source: { kind: 'env' },
    });
    // Set but empty is unset, as for the other TEMPORAL_* variables.
    expect(projectTaskQueue({ dir, env: { TEMPORAL_TASK_QUEUE: '' } })).toBe('shop');
  });

  it('is durable-agent where no package.json names a project', () => {
    const dir = folder({ 'package.json': '{ "type": "module" }' });
    expect(resolveProjectTaskQueue({ dir, env: {} })).toEqual({
      taskQueue: 'durable-agent',
      source: { kind: 'default' },
    });
    expect(projectTaskQueue({ dir: folder({ 'package.json': '{ not json' }), env: {} })).toBe('durable-agent');
  });
});
