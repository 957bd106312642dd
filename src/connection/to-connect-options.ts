import type { TLSConfig } from '@temporalio/client';
import { loadConfigData, type ClientConfigTLS, type ConfigDataSource } from '@temporalio/envconfig';
import type { ConnectionSettings } from './connection-options.js';
import { ConnectionConfigError } from './errors/connection-config-error.js';

/** What both `Connection.connect` (client) and `NativeConnection.connect` (worker) take. */
export interface ConnectOptions {
  address: string;
  /** Always explicit: `false` keeps an API key from switching TLS on behind the settings' back. */
  tls: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
}

/**
 * The options to connect with, certificate files read.
 *
 * @throws ConnectionConfigError when a certificate or key file cannot be read, or a client certificate comes
 * without its key (or the other way round).
 */
export function toConnectOptions(settings: ConnectionSettings): ConnectOptions {
  return {
    address: settings.address,
    tls: tlsOf(settings),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.metadata ? { metadata: settings.metadata } : {}),
  };
}

function tlsOf(settings: ConnectionSettings): TLSConfig | boolean {
  const { tls } = settings;
  if (!tls.enabled) return false;
  if (tls.explicit) return tls.explicit;
  if (!tls.configured) return true;
  return loadTls(tls.configured, tls.why);
}

function loadTls(configured: ClientConfigTLS, why: string): TLSConfig {
  const read = (source: ConfigDataSource | undefined, what: string) => readSource(source, what, why);
  const serverRootCACertificate = read(configured.serverCACert, 'server CA certificate');
  const crt = read(configured.clientCert, 'client certificate');
  const key = read(configured.clientKey, 'client key');
  if ((crt === undefined) !== (key === undefined)) {
    throw new ConnectionConfigError(
      `A TLS client ${crt ? 'certificate comes without its key' : 'key comes without its certificate'} (${why}). ` +
        'Mutual TLS needs both: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or ' +
        'client_cert_path and client_key_path in the profile), or neither.',
    );
  }
  return {
    ...(configured.serverName !== undefined ? { serverNameOverride: configured.serverName } : {}),
    ...(serverRootCACertificate ? { serverRootCACertificate } : {}),
    ...(crt && key ? { clientCertPair: { crt, key } } : {}),
  };
}

function readSource(source: ConfigDataSource | undefined, what: string, why: string): Buffer | undefined {
  if (source === undefined) return undefined;
  try {
    const data = loadConfigData(source);
    return data === undefined ? undefined : Buffer.from(data);
  } catch (error) {
    const where = 'path' in source ? ` ${source.path}` : '';
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConnectionConfigError(
      `Cannot read the TLS ${what}${where} (${why}): ${reason}. Fix the path or the file's permissions.`,
      { cause: error },
    );
  }
}
