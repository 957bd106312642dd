// The local inbox page of `durable-agent ui`: a small web app on 127.0.0.1 over the `durable-agent/http` handlers
// (`createInboxHandler` under /api/inbox, `createAgentHandler` under /api/chat for the chat box). Whoever opens the
// printed link is signed in; every API request must carry that session and come from the page's own origin, and
// the Host header must name this server (a DNS-rebinding page gets nothing).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentClient } from '../client/agent-client.js';
import { createAgentHandler } from '../http/agent-handler.js';
import { HttpRefusal, refusalResponse } from '../http/http-refusal.js';
import { createInboxHandler } from '../http/inbox-handler.js';
import { toNodeListener } from '../http/node-listener.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { appScript } from './app-script.js';
import { PAGE_CSS, PAGE_HTML, SIGNED_OUT_HTML } from './page.js';
import { UiSessions } from './ui-session.js';

/** Options of {@link startInboxUi}. */
export interface InboxUiOptions {
  client: AgentClient;
  /** Who the page acts as: their own runs are theirs to decide; others' need the agent's `authorizeDecision`. */
  user: string;
  /** The agent the chat box talks to; without it the page has no chat box. */
  agent?: string;
  /** Only runs on this task queue (default: every agent run of the namespace). */
  taskQueue?: string;
  /** Port on 127.0.0.1 (default 0: a free one). */
  port?: number;
  /** Told of unexpected failures (answered 500 with no details). Default: `console.error`. */
  onError?: (error: unknown) => void;
}

/** A running inbox page. */
export interface InboxUi {
  /** The link that signs a browser in (it carries the secret token: print it only to the person who started it). */
  readonly url: string;
  /** The page's origin, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Stops serving (open streams end; runs go on). */
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

/** Headers every answer carries: no framing, no sniffing, no referrer, nothing but the page's own files. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Starts the page on 127.0.0.1 and resolves once it listens. */
export async function startInboxUi(options: InboxUiOptions): Promise<InboxUi> {
  const sessions = new UiSessions();
  const onError = options.onError ?? ((error: unknown) => console.error('durable-agent ui:', error));
  const authenticate = (request: Request) => (sessions.has(request) ? { userId: options.user } : null);
  const handlerOptions = { client: options.client, authenticate, onError: (error: unknown) => onError(error) };
  // The person who started the page reviews everything that waits in the namespace.
  const inbox = createInboxHandler({
    ...handlerOptions,
    reviewer: () => true,
    ...(options.taskQueue !== undefined ? { taskQueue: options.taskQueue } : {}),
  });
  const chat = options.agent ? createAgentHandler({ ...handlerOptions, agent: options.agent }) : undefined;
  let origin = '';
  /** The Host headers that name this server (set once it listens). */
  let hosts: string[] = [];

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (!hosts.includes(request.headers.get('host') ?? '')) {
      throw new HttpRefusal(403, RefusalCode.HttpOriginRefused, `This page answers at ${origin} only.`);
    }
    const path = url.pathname;
    if (path.startsWith('/api/inbox/') || path === '/api/inbox') return await inbox(request);
    if (path === '/api/chat' || path.startsWith('/api/chat/')) {
      if (chat) return await chat(request);
      throw new HttpRefusal(404, RefusalCode.HttpNotFound, 'No chat box: start the page with --agent <name>.');
    }
    if (request.method !== 'GET') throw new HttpRefusal(405, RefusalCode.HttpMethodNotAllowed, 'Use GET.');
    if (path === '/login') return login(url);
    if (path === '/app.css') return asset(PAGE_CSS, 'text/css');
    if (path === '/app.js') return asset(await appScript(), 'text/javascript');
    if (path !== '/') throw new HttpRefusal(404, RefusalCode.HttpNotFound, 'No such page.');
    if (!sessions.has(request)) return html(SIGNED_OUT_HTML, 401);
    return html(PAGE_HTML.replace('<div id="app">', `<div id="app" ${pageData(options)}>`), 200);
  };

  const login = (url: URL): Response => {
    const session = sessions.login(url.searchParams.get('token'));
    if (!session) return html(SIGNED_OUT_HTML, 401);
    // The token leaves the address bar and the history at once.
    return new Response(null, { status: 303, headers: { location: '/', 'set-cookie': UiSessions.cookie(session) } });
  };

  const listener = toNodeListener(async (request) => {
    let response: Response;
    try {
      response = await handle(request);
    } catch (error) {
      if (!HttpRefusal.isInstance(error)) onError(error);
      response = refusalResponse(
        HttpRefusal.isInstance(error)
          ? error
          : new HttpRefusal(500, RefusalCode.HttpInternal, 'The request failed; the terminal says why.'),
      );
    }
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
    return response;
  });
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${HOST}:${port}`;
  hosts = [`${HOST}:${port}`, `localhost:${port}`];
  return {
    url: `${origin}/login?token=${sessions.token}`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the app needs to know at start, as data attributes (escaped: the agent name is the operator's text). */
function pageData(options: InboxUiOptions): string {
  const attribute = (name: string, value: string) => `data-${name}="${escapeHtml(value)}"`;
  return [attribute('user', options.user), ...(options.agent ? [attribute('agent', options.agent)] : [])].join(' ');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function html(body: string, status: number): Response {
  return new Response(body, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
  });
}

function asset(body: string, type: string): Response {
  return new Response(body, { headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-cache' } });
}
