// Connection settings resolved as Temporal's own tools resolve them: option > TEMPORAL_* variable > temporal.toml
// profile > default, with TLS switched on by TLS settings or an API key, and messages that name where each came
// from without showing a secret. No network: certificates are read, nothing connects.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeOrigin } from '../../src/connection/describe-connection.js';
import { ConnectionConfigError } from '../../src/connection/errors/connection-config-error.js';
import { resolveConnection } from '../../src/connection/resolve-connection.js';
import { toConnectOptions } from '../../src/connection/to-connect-options.js';

const dir = mkdtempSync(join(tmpdir(), 'durable-agent-envconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const configFile = join(dir, 'temporal.toml');
writeFileSync(join(dir, 'ca.pem'), 'CA PEM');
writeFileSync(
  configFile,
  [
    '[profile.default]',
    'address = "file-host:7233"',
    'namespace = "file-ns"',
    '[profile.default.grpc_meta]',
    'x-team = "agents"',
    '',
    '[profile.cloud]',
    'address = "ns.acct.tmprl.cloud:7233"',
    'namespace = "ns.acct"',
    'api_key = "secret-from-file"',
    '',
    '[profile.private]',
    'address = "temporal.internal:7233"',
    '[profile.private.tls]',
    `server_ca_cert_path = "${join(dir, 'ca.pem')}"`,
    'server_name = "temporal.internal"',
    '',
  ].join('\n'),
);

describe('resolveConnection', () => {
  it('defaults to localhost:7233 and namespace default, plaintext, when nothing is configured', () => {
    const settings = resolveConnection({ env: { HOME: join(dir, 'nowhere') } });
    expect(settings).toMatchObject({
      address: 'localhost:7233',
      namespace: 'default',
      tls: { enabled: false, why: 'no TLS is configured' },
      profile: { name: 'default', found: false },
      envVariables: [],
      sources: { address: 'default', namespace: 'default' },
    });
    expect(describeOrigin(settings)).toBe(
      'default address; no temporal.toml; no TEMPORAL_* variables set; TLS off (no TLS is configured)',
    );
    expect(toConnectOptions(settings)).toEqual({ address: 'localhost:7233', tls: false });
  });

  it('reads the default profile of the file, and lets variables and then options override it', () => {
    const fromFile = resolveConnection({ env: { TEMPORAL_CONFIG_FILE: configFile } });
    expect(fromFile).toMatchObject({
      address: 'file-host:7233',
      namespace: 'file-ns',
      metadata: { 'x-team': 'agents' },
      sources: { address: 'profile', namespace: 'profile' },
      configFile,
    });
    const fromEnv = resolveConnection({
      env: { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_ADDRESS: 'env-host:1', TEMPORAL_GRPC_META_X_TEAM: '' },
    });
    expect(fromEnv).toMatchObject({ address: 'env-host:1', namespace: 'file-ns', sources: { address: 'env' } });
    // An empty TEMPORAL_GRPC_META_* removes the profile's header, as Temporal's tools do.
    expect(fromEnv.metadata).toBeUndefined();
    // An empty variable counts as unset.
    expect(resolveConnection({ env: { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_ADDRESS: '' } }).address).toBe(
      'file-host:7233',
    );
    const fromOptions = resolveConnection({
      env: { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_ADDRESS: 'env-host:1' },
      address: 'option-host:2',
      namespace: 'option-ns',
    });
    expect(fromOptions).toMatchObject({
      address: 'option-host:2',
      namespace: 'option-ns',
      sources: { address: 'option', namespace: 'option' },
    });
  });

  it('turns TLS on for an API key, and names the key without showing it', () => {
    const cloud = resolveConnection({ env: { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'cloud' } });
    expect(cloud).toMatchObject({
      address: 'ns.acct.tmprl.cloud:7233',
      namespace: 'ns.acct',
      apiKey: 'secret-from-file',
      tls: { enabled: true, why: 'an API key is set, and API keys travel over TLS only' },
    });
    expect(toConnectOptions(cloud)).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      apiKey: 'secret-from-file',
      tls: true,
    });
    const origin = describeOrigin(cloud);
    expect(origin).toContain(`profile 'cloud' of ${configFile}`);
    expect(origin).toContain('API key set');
    expect(origin).not.toContain('secret-from-file');
    // TEMPORAL_TLS=false still wins (a local proxy that terminates TLS elsewhere).
    const plain = resolveConnection({ env: { TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false', HOME: dir } });
    expect(plain.tls).toEqual({ enabled: false, why: 'TLS is disabled by TEMPORAL_TLS' });
    expect(toConnectOptions(plain)).toMatchObject({ tls: false, apiKey: 'k' });
  });

  it('reads certificates named by the profile when connecting, not before', () => {
    const settings = resolveConnection({ env: { TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'private' } });
    expect(settings.tls).toMatchObject({ enabled: true, why: "the tls settings of profile 'private'" });
    expect(toConnectOptions(settings).tls).toEqual({
      serverNameOverride: 'temporal.internal',
      serverRootCACertificate: Buffer.from('CA PEM'),
    });
  });

  it('refuses a named profile or file that does not exist, listing what does', () => {
    const missingProfile = () => resolveConnection({ profile: 'staging', env: { TEMPORAL_CONFIG_FILE: configFile } });
    expect(missingProfile).toThrow(ConnectionConfigError);
    expect(missingProfile).toThrow(
      `Temporal profile 'staging' (from the profile option) is not in ${configFile}. Profiles there: 'default', ` +
        "'cloud', 'private'.",
    );
    expect(() => resolveConnection({ configFile: join(dir, 'none.toml'), env: {} })).toThrow(
      `The Temporal configuration file ${join(dir, 'none.toml')} (from the configFile option) does not exist.`,
    );
  });
});
