import { createHmac, timingSafeEqual } from 'node:crypto';
import type { JsonValue } from '../protocol/json.js';
import type { MCPVerifiedIdentity, MCPVerifyIdentity } from './authorization.js';

/** The claims a token carries: who the run is for, and the context authorization may rely on. */
export interface SignedClaims {
  userId?: string;
  context?: Record<string, JsonValue>;
}

/** The `context` key a signed claims token travels under (`context: { claims: token }`). */
export const CLAIMS_CONTEXT_KEY = 'claims';
const DEFAULT_LIFETIME_MS = 15 * 60_000;
const MAX_TOKEN_CHARS = 16 * 1024;

/**
 * Signs claims with a key shared by the party that vouches for the user (your web handler, after it checked the
 * session) and the workers: HMAC-SHA256 over the claims and an expiry. Start the run with
 * `context: { claims: signClaims({ userId, context: { role } }, key) }`; a worker configured with
 * {@link verifySignedClaims} then lets MCP authorization see only what the token says. Keep the key secret:
 * whoever has it can claim anything.
 */
export function signClaims(claims: SignedClaims, key: string | Buffer, options: { expiresInMs?: number } = {}): string {
  const payload = Buffer.from(
    JSON.stringify({
      ...(claims.userId !== undefined ? { u: claims.userId } : {}),
      c: claims.context ?? {},
      exp: Date.now() + (options.expiresInMs ?? DEFAULT_LIFETIME_MS),
    }),
  ).toString('base64url');
  return `${payload}.${mac(payload, key)}`;
}

/**
 * A `verifyIdentity` hook for {@link MCPAuthorizationConfig}: the run's identity is what a token made by
 * {@link signClaims} with `key` says, read from `context.claims`; a run without a valid, unexpired token has no
 * verified identity (no user, empty context), so a policy like `context.role === 'admin'` refuses it whatever
 * the starter stated. Expiry is checked when authorization asks (tokens of long runs need a longer lifetime).
 */
export function verifySignedClaims(key: string | Buffer): MCPVerifyIdentity {
  return ({ context }): MCPVerifiedIdentity | undefined => {
    const token = context.get(CLAIMS_CONTEXT_KEY);
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return undefined;
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    const expected = Buffer.from(mac(payload, key));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    let claims: { u?: unknown; c?: unknown; exp?: unknown };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return undefined;
    }
    if (typeof claims.exp !== 'number' || claims.exp < Date.now()) return undefined;
    const claimed = claims.c && typeof claims.c === 'object' && !Array.isArray(claims.c) ? claims.c : {};
    return {
      ...(typeof claims.u === 'string' ? { userId: claims.u } : {}),
      context: claimed as Record<string, unknown>,
    };
  };
}

function mac(payload: string, key: string | Buffer): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}
