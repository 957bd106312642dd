// Who may use a local inbox page: only a browser that opened the printed link (its token) holds a session, sent back
// in an HttpOnly, SameSite=Strict cookie that scripts cannot read and other sites never send.
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE, UiSessions } from '../../src/ui/ui-session.js';

const withCookie = (cookie: string) => new Request('http://127.0.0.1:1/', { headers: { cookie } });

describe('UiSessions', () => {
  it('opens a session for the link token only, each login its own', () => {
    const sessions = new UiSessions();
    expect(sessions.token).toMatch(/^[\w-]{43}$/);
    expect(sessions.login(null)).toBeUndefined();
    expect(sessions.login('')).toBeUndefined();
    expect(sessions.login(`${sessions.token}x`)).toBeUndefined();
    expect(sessions.login(sessions.token.toUpperCase())).toBeUndefined();
    const first = sessions.login(sessions.token)!;
    const second = sessions.login(sessions.token)!;
    expect(first).not.toBe(second);
    expect(new UiSessions().login(sessions.token)).toBeUndefined();
  });

  it('knows a request by its session cookie, never by the token or a forged value', () => {
    const sessions = new UiSessions();
    const session = sessions.login(sessions.token)!;
    expect(sessions.has(withCookie(`other=1; ${SESSION_COOKIE}=${session}`))).toBe(true);
    expect(sessions.has(withCookie(`${SESSION_COOKIE}=${sessions.token}`))).toBe(false);
    expect(sessions.has(withCookie(`${SESSION_COOKIE}=forged`))).toBe(false);
    expect(sessions.has(withCookie(`x${SESSION_COOKIE}=${session}`))).toBe(false);
    expect(sessions.has(new Request('http://127.0.0.1:1/'))).toBe(false);
  });

  it('sets the cookie out of scripts’ and other sites’ reach', () => {
    expect(UiSessions.cookie('s')).toBe(`${SESSION_COOKIE}=s; HttpOnly; SameSite=Strict; Path=/`);
  });

  it('keeps a bounded number of sessions, dropping the oldest', () => {
    const sessions = new UiSessions();
    const first = sessions.login(sessions.token)!;
    for (let i = 0; i < 100; i++) sessions.login(sessions.token);
    expect(sessions.has(withCookie(`${SESSION_COOKIE}=${first}`))).toBe(false);
  });
});
