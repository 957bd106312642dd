#!/usr/bin/env node
// The `durable-agent` command (`npx durable-agent …`). An installed package runs its compiled JavaScript
// (dist/); a clone of the repository has no dist/ until `npm run build`, so there the TypeScript sources run
// through tsx (a dev dependency, present after `npm ci`). Plain JavaScript, so it needs neither.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const compiled = new URL('dist/src/cli/main.js', root);

async function entryPoint() {
  if (existsSync(fileURLToPath(compiled))) return compiled;
  try {
    const { register } = await import('tsx/esm/api');
    register();
  } catch (error) {
    process.stderr.write(
      'durable-agent: there is no build (dist/) and tsx, which runs the sources, is not installed ' +
        `(${error instanceof Error ? error.message : String(error)}). Run "npm ci" in ${fileURLToPath(root)}, ` +
        'or "npm run build".\n',
    );
    process.exit(1);
  }
  return new URL('src/cli/main.ts', root);
}

const { runCli } = await import((await entryPoint()).href);
await runCli();
