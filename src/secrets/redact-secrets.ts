// Secrets this process holds (provider API keys, header values, payload encryption keys) are remembered here as
// they are configured, so that text about to leave the worker — a failure message, a tool error the model reads,
// a log line — can be scrubbed of them. A provider or an HTTP client that echoes a key back in an error must not
// put it into workflow history.

/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]';

// Shorter values are too likely to occur in ordinary text to be replaced safely (and too short to be real keys).
const MIN_SECRET_LENGTH = 8;
// Credentials written into a URL (`https://user:password@host/`).
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

const secrets = new Set<string>();
let pattern: RegExp | undefined;

/** Remembers a secret value so {@link redactSecrets} removes it. Values under 8 characters are ignored. */
export function registerSecret(value: string | null | undefined): void {
  if (typeof value !== 'string') return;
  const secret = value.trim();
  if (secret.length < MIN_SECRET_LENGTH || secrets.has(secret)) return;
  secrets.add(secret);
  pattern = undefined;
}

/** `text` with every registered secret and every credential in a URL replaced by `[REDACTED]`. */
export function redactSecrets(text: string): string {
  let out = text.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
  if (secrets.size === 0) return out;
  pattern ??= new RegExp(
    // Longest first, so a secret that contains another is replaced whole.
    [...secrets]
      .sort((a, b) => b.length - a.length)
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  out = out.replace(pattern, REDACTED);
  return out;
}

/** A copy of a JSON-like value with {@link redactSecrets} applied to every string in it (keys included). */
export function redactSecretsDeep<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactSecretsDeep(item)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redactSecrets(key), redactSecretsDeep(item)]),
    ) as T;
  }
  return value;
}
