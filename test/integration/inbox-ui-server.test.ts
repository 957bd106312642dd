// The local inbox page's server (`durable-agent ui`) against hostile browsers and pages, over real HTTP with a real
// Temporal client: only the printed link signs a browser in, the session is an HttpOnly SameSite=Strict cookie, a
// request naming another host (DNS rebinding) or coming from another origin is refused, and every answer carries a
// strict Content-Security-Policy. No worker is needed: nothing waits.
import { request as httpRequest } from 'node:http';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.js';
import { startInboxUi, type InboxUi } from '../../src/ui/ui-server.js';
import { createTestEnv, uniqueTaskQueue } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
let ui: InboxUi;
beforeAll(async () => {
  env = await createTestEnv();
  const taskQueue = uniqueTaskQueue('ui');
  const client = new AgentClient({ client: env.client, taskQueue });
  // Runs of other tests wait on the same server: this page looks at its own (empty) task queue only.
  ui = await startInboxUi({ client, user: '<b>operator</b>', agent: 'helper"><script>', taskQueue });
});
afterAll(async () => {
  await ui?.close();
  await env?.teardown();
});

async function signIn(): Promise<string> {
  const login = await fetch(ui.url, { redirect: 'manual' });
  expect(login.status).toBe(303);
  expect(login.headers.get('location')).toBe('/');
  const cookie = login.headers.get('set-cookie')!;
  expect(cookie).toMatch(/; HttpOnly; SameSite=Strict; Path=\/$/);
  return cookie.split(';')[0]!;
}

/** A GET with a Host header of our choosing (fetch will not send one). */
function getWithHost(path: string, host: string, cookie: string): Promise<number> {
  const { port } = new URL(ui.origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host, cookie } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the local inbox page', () => {
  it('signs in only the browser with the link, and serves nothing of runs without a session', async () => {
    const signedOut = await fetch(`${ui.origin}/`);
    expect(signedOut.status).toBe(401);
    expect(await signedOut.text()).toContain('Open the link');
    expect((await fetch(`${ui.origin}/login?token=guess`, { redirect: 'manual' })).status).toBe(401);
    const api = await fetch(`${ui.origin}/api/inbox`);
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: { code: 'Http.Unauthenticated' } });

    const cookie = await signIn();
    const page = await fetch(`${ui.origin}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    // What the operator typed reaches the page as text, never as markup.
    expect(html).toContain('data-user="&#60;b&#62;operator&#60;/b&#62;"');
    expect(html).toContain('data-agent="helper&#34;&#62;&#60;script&#62;"');
    const inbox = await fetch(`${ui.origin}/api/inbox`, { headers: { cookie } });
    expect(await inbox.json()).toMatchObject({ user: '<b>operator</b>', reviewer: true, items: [] });
  });

  it('refuses another host name (DNS rebinding) and other origins, and confines the page', async () => {
    const cookie = await signIn();
    const { port } = new URL(ui.origin);
    expect(await getWithHost('/api/inbox', `127.0.0.1:${port}`, cookie)).toBe(200);
    expect(await getWithHost('/api/inbox', `localhost:${port}`, cookie)).toBe(200);
    expect(await getWithHost('/api/inbox', `attacker.example:${port}`, cookie)).toBe(403);
    expect(await getWithHost('/', 'attacker.example', cookie)).toBe(403);

    const crossSite = await fetch(`${ui.origin}/api/inbox/runs/r/approvals/c`, {
      method: 'POST',
      headers: { cookie, origin: 'https://attacker.example', 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true, token: 't' }),
    });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toMatchObject({ error: { code: 'Http.OriginRefused' } });
    const chat = await fetch(`${ui.origin}/api/chat`, {
      method: 'POST',
      headers: { cookie, origin: 'https://attacker.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(chat.status).toBe(403);

    const script = await fetch(`${ui.origin}/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(script.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(script.headers.get('x-frame-options')).toBe('DENY');
    expect(script.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await fetch(`${ui.origin}/elsewhere`)).status).toBe(404);
  });
});
