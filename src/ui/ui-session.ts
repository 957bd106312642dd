// Who may use a local inbox page: whoever opens the link `durable-agent ui` printed. The link's random token is
// exchanged once per browser for a session cookie (HttpOnly, SameSite=Strict), so the token leaves the address bar at
// once and scripts never see the session.
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** The session cookie's name. */
export const SESSION_COOKIE = 'durable_agent_ui';

/** Sessions one UI keeps at most: the oldest go first (each login makes one). */
const MAX_SESSIONS = 100;

/** The link token and the sessions it opened. */
export class UiSessions {
  /** The token the printed link carries (256 random bits, URL-safe). */
  readonly token = randomBytes(32).toString('base64url');
  private readonly sessions = new Set<string>();

  /** A new session when `token` is the link's; undefined otherwise. */
  login(token: string | null): string | undefined {
    if (token === null || !same(token, this.token)) return undefined;
    const session = randomBytes(32).toString('base64url');
    this.sessions.add(session);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.values().next().value!);
    return session;
  }

  /** Whether the request carries a session this UI opened. */
  has(request: Request): boolean {
    const session = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
    return session !== undefined && this.sessions.has(session);
  }

  /** The `set-cookie` header value of a session: not readable by scripts, never sent by other sites. */
  static cookie(session: string): string {
    return `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

function same(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of cookie `name` in a `cookie` header. */
function cookieValue(header: string | null, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}
