// Loads the agents a user's module exports, for `durable-agent dev` and `durable-agent worker`. TypeScript files
// go through tsx, found in the user's project first (their dev dependency), else beside this package.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent } from '../../agent/agent.js';
import { CliFailure } from '../errors/cli-failure.js';

/** Where `dev` and `worker` look for agents when no file is given, in this order. */
export const DEFAULT_AGENT_FILES = ['agents.ts', 'src/agents.ts', 'agents.js', 'src/agents.js'] as const;

/** The agents file to load: the given one, else the first of {@link DEFAULT_AGENT_FILES} in `cwd`. */
export function findAgentsFile(given: string | undefined, cwd: string = process.cwd()): string {
  if (given !== undefined) {
    const path = resolve(cwd, given);
    if (!existsSync(path)) throw new CliFailure(`No agents file at ${path}.`);
    return path;
  }
  const found = DEFAULT_AGENT_FILES.map((file) => join(cwd, file)).find((path) => existsSync(path));
  if (!found) {
    throw new CliFailure(
      `No agents file here (looked for ${DEFAULT_AGENT_FILES.join(', ')} in ${cwd}). Give one, e.g. ` +
        `'npx durable-agent dev ./my-agents.ts', or create a project with 'npx durable-agent init my-agent'.`,
    );
  }
  return found;
}

/**
 * Imports `file` and returns its agents: the `agents` export (an array or one agent), else the default export,
 * else every exported `Agent`.
 *
 * @throws CliFailure when the file exports no agent, or a TypeScript file cannot be loaded because tsx is missing.
 */
export async function loadAgents(file: string): Promise<Agent[]> {
  if (/\.[mc]?tsx?$/.test(file)) await registerTypeScript(file);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // tsx compiles a .ts file outside an ES-module package as CommonJS, which cannot load this ESM-only package.
    if (/require\(\) ES Module|ERR_REQUIRE_ESM|Cannot use import statement/.test(message)) {
      throw new CliFailure(
        `${file} could not be loaded as an ES module (${message.split('\n')[0]}). durable-agent is ESM-only: add ` +
          '"type": "module" to your package.json, or name the file agents.mts.',
        { cause: error },
      );
    }
    throw error;
  }
  const chosen = loaded.agents ?? loaded.default;
  const agents = (chosen === undefined ? Object.values(loaded) : [chosen].flat()).filter(isAgent);
  if (agents.length === 0) {
    throw new CliFailure(
      `${file} exports no agent. Export them, e.g. 'export const agents = [new Agent({ name: ... })]' ` +
        "(Agent from 'durable-agent').",
    );
  }
  return agents;
}

function isAgent(value: unknown): value is Agent {
  if (value instanceof Agent) return true;
  // A second copy of this package (a clone running its sources while the file imports the built package) makes
  // agents of another class object: recognise them by shape.
  return (
    typeof value === 'object' &&
    value !== null &&
    value.constructor?.name === 'Agent' &&
    typeof (value as { name?: unknown }).name === 'string'
  );
}

let registered = false;

async function registerTypeScript(file: string): Promise<void> {
  if (registered) return;
  const candidates = [join(process.cwd(), 'package.json'), file, import.meta.url];
  for (const from of candidates) {
    let api: string;
    try {
      api = createRequire(from).resolve('tsx/esm/api');
    } catch {
      continue;
    }
    const { register } = (await import(pathToFileURL(api).href)) as { register: () => unknown };
    register();
    registered = true;
    return;
  }
  throw new CliFailure(
    `${file} is TypeScript, which needs tsx to load: run 'npm install --save-dev tsx' in your project, ` +
      'or give a JavaScript file.',
  );
}
