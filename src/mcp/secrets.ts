import type { JsonValue } from '../protocol/json.js';
import type { MCPServerConfig } from './types.js';

/** What replaces a secret in anything the MCP library returns, logs or throws. */
export const REDACTED = '[REDACTED]';

// Names that mark a value as secret whatever its length (but at least MIN_NAMED_LENGTH characters, so that
// `AUTH_MODE=on` does not blank out every "on").
const SECRET_NAME = /token|secret|key|pass|auth|cred|session|cookie|signature|private/i;
const MIN_NAMED_LENGTH = 4;
// Any other configured value (an env value, a header value) counts as a secret from this length on: shorter
// values ("debug", "true", "8080") are not secrets, and redacting them would garble ordinary output.
const MIN_PLAIN_LENGTH = 8;
// Headers that never carry credentials; their values (content types, user agents) appear in ordinary output.
const PUBLIC_HEADERS = new Set([
  'accept',
  'accept-language',
  'cache-control',
  'content-type',
  'mcp-protocol-version',
  'user-agent',
]);

/**
 * The secret strings in a server configuration: header values (except a few public headers), environment
 * values, URL user/password, query values and token-like path segments (of the server URL and of any URL in a
 * stdio argument), values of token-like command-line flags, and the config's own
 * `redact` list. Short values count only under a secret-looking name (see the constants above).
 */
export function collectSecrets(config: MCPServerConfig): string[] {
  const found = new Set<string>();
  const add = (value: unknown, name = ''): void => {
    if (typeof value !== 'string') return;
    const min = SECRET_NAME.test(name) ? MIN_NAMED_LENGTH : MIN_PLAIN_LENGTH;
    if (value.length >= min) found.add(value);
  };
  for (const value of config.redact ?? []) if (value) found.add(value);
  if (config.type === 'stdio') {
    for (const [name, value] of Object.entries(config.env ?? {})) {
      add(value, name);
      for (const url of value.match(URL_IN_TEXT) ?? []) collectFromUrl(url, add);
    }
    collectFromArgs(config.args ?? [], add);
    return [...found];
  }
  collectFromUrl(config.url, add);
  collectFromHeaders(config.requestInit?.headers, add);
  if (config.type !== 'streamable-http') {
    const init = config.eventSourceInit as { headers?: unknown } | undefined;
    collectFromHeaders(init?.headers as HeadersInit | undefined, add);
  }
  return [...found];
}

function collectFromArgs(args: readonly string[], add: (value: unknown, name: string) => void): void {
  args.forEach((arg, index) => {
    // A URL anywhere in an argument (`postgresql://app:S3cret@db/prod`, `--db=https://…?key=…`) carries
    // credentials in its user, password, query values and token-like path segments.
    for (const url of arg.match(URL_IN_TEXT) ?? []) collectFromUrl(url, add);
    const flag = /^--?([\w.-]+)(?:=(.*))?$/s.exec(arg);
    if (!flag?.[1] || !SECRET_NAME.test(flag[1])) return;
    if (flag[2] !== undefined) add(flag[2], flag[1]);
    else add(args[index + 1], flag[1]);
  });
}

function collectFromUrl(url: string | URL, add: (value: unknown, name: string) => void): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  add(safeDecode(parsed.username), 'user');
  add(safeDecode(parsed.password), 'password');
  for (const [name, value] of parsed.searchParams) add(value, name);
  for (const segment of parsed.pathname.split('/')) {
    const decoded = safeDecode(segment);
    if (TOKEN_SEGMENT.test(decoded) && /[0-9]/.test(decoded) && /[A-Za-z]/.test(decoded)) add(decoded, 'token');
  }
}

// `scheme://…` up to whitespace or a quote.
const URL_IN_TEXT = /[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s"'<>]+/g;
// A path segment that looks like a credential (webhook and bot tokens): 20+ URL-safe characters, letters and digits.
const TOKEN_SEGMENT = /^[A-Za-z0-9_\-.~:]{20,}$/;

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function collectFromHeaders(headers: HeadersInit | undefined, add: (value: unknown, name: string) => void): void {
  if (!headers) return;
  const entries: Array<[string, string]> = [];
  try {
    new Headers(headers).forEach((value, name) => entries.push([name, value]));
  } catch {
    return;
  }
  for (const [name, value] of entries) {
    if (PUBLIC_HEADERS.has(name)) continue;
    // A header is a credential more often than not: take it from the named minimum, whatever its name.
    add(value, 'header');
    // `Bearer abc…`: the token alone may show up too (e.g. echoed back by a server).
    const parts = value.split(/\s+/);
    if (parts.length === 2) add(parts[1], 'token');
  }
}

/** Removes known secrets from strings and JSON data. */
export interface Redactor {
  /** `text` with every secret (and its URL-encoded form) replaced by {@link REDACTED}. */
  text(text: string): string;
  /** A copy of JSON data with secrets removed from every string, keys included. */
  json<T extends JsonValue | undefined>(value: T): T;
  /** True when `text` contains a secret. */
  leaks(text: string): boolean;
}

/** Builds a {@link Redactor} for a set of secret strings. */
export function createRedactor(secrets: Iterable<string>): Redactor {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  // Longest first, so a secret containing another is replaced whole.
  const ordered = [...forms].filter(Boolean).sort((a, b) => b.length - a.length);
  const text = (input: string): string => {
    let output = input;
    for (const form of ordered) if (output.includes(form)) output = output.split(form).join(REDACTED);
    return output;
  };
  const json = <T extends JsonValue | undefined>(value: T): T => {
    if (ordered.length === 0) return value;
    return redactJson(value, text) as T;
  };
  const leaks = (input: string): boolean => ordered.some((form) => input.includes(form));
  return { text, json, leaks };
}

function redactJson(value: JsonValue | undefined, text: (input: string) => string): JsonValue | undefined {
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, text) ?? null);
  if (value && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) {
      const redacted = redactJson(item, text);
      if (redacted !== undefined) out[text(key)] = redacted;
    }
    return out;
  }
  return value;
}
