// The browser tests' `useChat` page (test/browser/chat-page.ts), bundled with esbuild at test time, and served with
// the agent handler on one origin, as an app would serve them.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { serveHandler, type TestHttpServer } from './http-chat.js';

const PAGE =
  '<!doctype html><html><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>';

/** The page's script: React, `@ai-sdk/react` and the page, in one ES module. */
export async function bundleChatPage(): Promise<string> {
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('../browser/chat-page.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  return bundled.outputFiles[0]!.text;
}

/** Serves the page at `/` (its script at `/app.js`) and `handler` on every other route. */
export async function serveChatPage(
  handler: (request: Request) => Promise<Response>,
  appJs: string,
): Promise<TestHttpServer> {
  return await serveHandler(handler, (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/') return new Response(PAGE, { headers: { 'content-type': 'text/html' } });
    if (path === '/app.js') return new Response(appJs, { headers: { 'content-type': 'text/javascript' } });
    return undefined;
  });
}

/** The page's URL for a new chat (the chat id is in the URL, so a reload rejoins the same chat). */
export function newChatUrl(server: TestHttpServer): string {
  return `${server.url}/?chat=c${Math.random().toString(36).slice(2, 10)}`;
}

/** Types `text` into the page's input and sends it. */
export async function ask(page: Page, text: string): Promise<void> {
  await page.fill('#input', text);
  await page.click('#send');
}

/** The text of the page's messages of `role`, in order. */
export async function messageTexts(page: Page, role: 'user' | 'assistant'): Promise<string[]> {
  return await page
    .locator(`.message[data-role="${role}"]`)
    .evaluateAll((nodes) =>
      nodes.map((node) => Array.from(node.querySelectorAll('.text'), (span) => span.textContent ?? '').join('')),
    );
}
