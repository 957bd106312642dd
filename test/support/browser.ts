// Headless Chromium for the browser tests: Debian's `chromium` (installed by scripts/install-chromium.mjs, which
// `npm test` runs first) driven by playwright-core through its executable path, with a fresh profile per browser.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where the browser is: CHROMIUM_PATH, else what install-chromium.mjs installs. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Flags this machine needs: without them Chromium tries its background services (QUIC, component updates, sync)
 * on a closed network and the page's own connections are refused.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A launched browser with its own profile directory; `close()` ends it and removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium on a fresh profile directory (playwright passes it as `--user-data-dir`; it refuses
 * the flag in `args`).
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'durable-agent-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: FLAGS,
    timeout: 60_000,
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
