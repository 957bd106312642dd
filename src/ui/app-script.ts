// The inbox page's script. An installed package ships it bundled (`npm run build` writes dist/ui/app.js with esbuild,
// scripts/build-ui.mjs); a checkout of the repository has no build, so there it is bundled from src/ui/app/ on first
// use with esbuild, a dev dependency a checkout has.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the build puts the bundle, seen from this module's place in dist/ (dist/src/ui/ → dist/ui/app.js). */
const BUILT = new URL('../../ui/app.js', import.meta.url);
/** The app's entry in a checkout. */
const SOURCE = new URL('./app/main.ts', import.meta.url);

let script: Promise<string> | undefined;

/** The app's JavaScript (an ES module), read or bundled once per process. */
export function appScript(): Promise<string> {
  script ??= load();
  return script;
}

async function load(): Promise<string> {
  const built = fileURLToPath(BUILT);
  if (existsSync(built)) return readFileSync(built, 'utf8');
  const source = fileURLToPath(SOURCE);
  if (!existsSync(source)) {
    throw new Error(`The inbox page's script is missing (${built}): rebuild the package with npm run build.`);
  }
  const { bundleApp } = (await import(new URL('../../scripts/build-ui.mjs', import.meta.url).href)) as {
    bundleApp: (entry: string) => Promise<string>;
  };
  return await bundleApp(source);
}
