import { describe, expect, it } from 'vitest';
import { REDACTED, collectSecrets, createRedactor } from '../../src/mcp/secrets.js';

describe('collectSecrets', () => {
  it('finds env values, token-like flags and the redact list of a stdio server', () => {
    const secrets = collectSecrets({
      type: 'stdio',
      command: 'node',
      args: ['server.js', '--api-key', 'flag-secret-1', '--token=inline-secret-2', '--verbose', 'yes'],
      env: { API_TOKEN: 'tok1', LOG_LEVEL: 'debug', DATABASE_URL: 'postgres://u:pw@db/app' },
      redact: ['extra'],
    });
    expect(secrets).toEqual(
      expect.arrayContaining(['flag-secret-1', 'inline-secret-2', 'tok1', 'postgres://u:pw@db/app', 'extra']),
    );
    // Short values under ordinary names are not secrets: redacting them would garble every output.
    expect(secrets).not.toContain('debug');
    expect(secrets).not.toContain('yes');
  });

  it('finds header values (and bearer tokens), URL credentials and query values of an HTTP server', () => {
    const secrets = collectSecrets({
      type: 'http',
      url: 'https://user:p%40ssword1@example.com/mcp?key=querysecret&mode=json',
      requestInit: { headers: { Authorization: 'Bearer abcdefgh1234', 'Content-Type': 'application/json' } },
    });
    expect(secrets).toEqual(
      expect.arrayContaining(['Bearer abcdefgh1234', 'abcdefgh1234', 'p@ssword1', 'querysecret']),
    );
    expect(secrets).not.toContain('application/json');
    expect(secrets).not.toContain('json');
  });
});

describe('createRedactor', () => {
  const redactor = createRedactor(['s3cr3t-value', 'a b/c']);

  it('replaces secrets and their URL-encoded forms in text', () => {
    expect(redactor.text('x s3cr3t-value y a%20b%2Fc')).toBe(`x ${REDACTED} y ${REDACTED}`);
    expect(redactor.leaks('no secret here')).toBe(false);
    expect(redactor.leaks('…s3cr3t-value…')).toBe(true);
  });

  it('walks JSON data, keys included', () => {
    expect(redactor.json({ list: ['s3cr3t-value'], 's3cr3t-value': 1, n: 2 })).toEqual({
      list: [REDACTED],
      [REDACTED]: 1,
      n: 2,
    });
  });
});
