#!/usr/bin/env node
// Bundles the inbox page's script (src/ui/app/main.ts, plain TypeScript and DOM) into dist/ui/app.js with esbuild, for
// `npm run build`: the package ships the bundle, so `npx durable-agent ui` needs no bundler. A checkout without a
// build bundles it on first use through `bundleApp` (src/ui/app-script.ts).
//
// Usage: node scripts/build-ui.mjs   (after tsc, which empties dist/ first)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

/** The app bundled into one ES module for the browsers of the last few years; returns its text. */
export async function bundleApp(entry) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    legalComments: 'none',
    logLevel: 'warning',
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = new URL('../', import.meta.url);
  const out = fileURLToPath(new URL('dist/ui/app.js', root));
  const text = await bundleApp(fileURLToPath(new URL('src/ui/app/main.ts', root)));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  process.stderr.write(`build-ui: wrote ${out} (${text.length} bytes)\n`);
}
