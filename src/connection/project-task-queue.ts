// The task queue of a project: each project on a Temporal gets its own, so two projects on one dev server never take
// each other's runs. A worker polls one task queue and a run goes to whichever worker polls its queue: with one
// queue for every project, a run of project A's agent could reach project B's worker, which does not host it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_TASK_QUEUE } from '../protocol/index.js';

/** Where {@link projectTaskQueue} looks, and the variable that overrides it. */
export interface ProjectTaskQueueOptions {
  /** A folder of the project: the nearest package.json with a `name`, here or above, names it. Default: `process.cwd()`. */
  dir?: string;
  /** Where `TEMPORAL_TASK_QUEUE` is read. Default: `process.env`. */
  env?: Record<string, string | undefined>;
}

/** A project's task queue and what decided it. */
export interface ProjectTaskQueue {
  taskQueue: string;
  /** `TEMPORAL_TASK_QUEUE`, the package.json whose `name` it is, or the default (no named package.json). */
  source: { kind: 'env' } | { kind: 'package.json'; path: string } | { kind: 'default' };
}

/**
 * The project's task queue: `TEMPORAL_TASK_QUEUE` when set, else the nearest `name` of a package.json at or above
 * `dir`, else `durable-agent`. The CLI's `worker`, `dev` and client commands use it, as do the scripts of a project
 * `durable-agent init` writes; pass it as `taskQueue` to `createAgentWorker` and `AgentClient.connect` so a worker
 * and its clients agree. (Their own default stays `TEMPORAL_TASK_QUEUE` or `durable-agent`, so a deployed worker
 * does not move to another queue when its package is renamed.)
 */
export function projectTaskQueue(options: ProjectTaskQueueOptions = {}): string {
  return resolveProjectTaskQueue(options).taskQueue;
}

/** {@link projectTaskQueue}, with what decided it (for messages that say where a queue came from). */
export function resolveProjectTaskQueue(options: ProjectTaskQueueOptions = {}): ProjectTaskQueue {
  const fromEnv = (options.env ?? process.env).TEMPORAL_TASK_QUEUE;
  if (fromEnv) return { taskQueue: fromEnv, source: { kind: 'env' } };
  for (let dir = resolve(options.dir ?? process.cwd()); ; dir = dirname(dir)) {
    const path = join(dir, 'package.json');
    // A package.json without a name (`{ "type": "module" }` in a subfolder) does not name the project: look above.
    const name = existsSync(path) ? packageName(path) : undefined;
    if (name !== undefined) return { taskQueue: name, source: { kind: 'package.json', path } };
    if (dirname(dir) === dir) return { taskQueue: DEFAULT_TASK_QUEUE, source: { kind: 'default' } };
  }
}

/** The package's `name`, or undefined when it has none (or the file does not parse: npm would say so, not us). */
function packageName(path: string): string | undefined {
  try {
    const { name } = JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown };
    return typeof name === 'string' && name.trim() !== '' ? name.trim() : undefined;
  } catch {
    return undefined;
  }
}
