// The process-wide secret redactor: what it replaces, what it leaves alone.
import { describe, expect, it } from 'vitest';
import { redactSecrets, redactSecretsDeep, registerSecret } from '../../src/secrets/redact-secrets.js';

describe('redactSecrets', () => {
  it('replaces every registered secret, the longest first, with regex characters taken literally', () => {
    registerSecret('sk-redact-(a+b)*?');
    registerSecret('sk-redact-(a+b)*?-extended');
    expect(redactSecrets('key sk-redact-(a+b)*?-extended and sk-redact-(a+b)*? and sk-redact-aab')).toBe(
      'key [REDACTED] and [REDACTED] and sk-redact-aab',
    );
  });

  it('ignores values too short to be keys, and anything that is not a string', () => {
    registerSecret('short');
    registerSecret(undefined);
    registerSecret(null);
    registerSecret('   ');
    expect(redactSecrets('a short note')).toBe('a short note');
  });

  it('removes credentials written into URLs, whoever configured them', () => {
    expect(redactSecrets('GET postgres://app:s3cr3t@db:5432/x and https://token@api.example.com/v1')).toBe(
      'GET postgres://[REDACTED]@db:5432/x and https://[REDACTED]@api.example.com/v1',
    );
    expect(redactSecrets('mail me at someone@example.com')).toBe('mail me at someone@example.com');
  });

  it('redacts every string of JSON data, keys included', () => {
    registerSecret('deep-secret-value-1234');
    expect(redactSecretsDeep({ list: ['deep-secret-value-1234', 3], 'deep-secret-value-1234': { ok: true } })).toEqual({
      list: ['[REDACTED]', 3],
      '[REDACTED]': { ok: true },
    });
  });
});
