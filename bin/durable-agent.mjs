#!/usr/bin/env node
// The `durable-agent` command (`npx durable-agent …`). An installed package runs its compiled JavaScript
// (dist/); a clone of the repository has no dist/ until `npm run build`, so there the TypeScript sources run
// through tsx (a dev dependency, present after `npm ci`). Plain JavaScript, so it needs neither.
//
// It first checks the Node version, before loading anything else: on an older Node the CLI would die with an
// unrelated error from tsx or a dependency. So this file has no static imports and no top-level await, and uses
// nothing newer than Node 14 parses.
/* global process, URL -- Node's globals: importing them would come before the check */

/** The oldest Node the package supports: package.json's `engines.node` (a unit test holds them equal). */
const MINIMUM_NODE = [22, 12];

function nodeTooOld(version) {
  const [major, minor] = version.split('.').map(Number);
  return major < MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor < MINIMUM_NODE[1]);
}

if (nodeTooOld(process.versions.node)) {
  const needed = MINIMUM_NODE.join('.');
  process.stderr.write(
    [
      `durable-agent needs Node.js ${needed} or newer, but this is Node.js ${process.versions.node} ` +
        `(${process.execPath}).`,
      'Install a current one (the LTS release will do) with your version manager, then run the command again:',
      '  nvm install --lts      # https://github.com/nvm-sh/nvm',
      '  fnm install --lts      # https://github.com/Schniz/fnm',
      '  volta install node@lts # https://volta.sh',
      'or download it from https://nodejs.org/en/download',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

async function entryPoint(root) {
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const compiled = new URL('dist/src/cli/main.js', root);
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

entryPoint(new URL('../', import.meta.url))
  .then((entry) => import(entry.href))
  // A failure left unhandled prints its stack and ends the process with status 1, as top-level await did.
  .then(({ runCli }) => runCli());
