import { Connection } from '@temporalio/client';
import type { ConnectionSettings } from './connection-options.js';
import { connectionFailure } from './connection-failure.js';
import { toConnectOptions } from './to-connect-options.js';

/** Options of {@link connectClient}. */
export interface ConnectClientOptions {
  /** How long to wait for the server to answer the first call. Default: 10 s (Temporal's default). */
  connectTimeoutMs?: number;
}

/**
 * Opens a client connection (`@temporalio/client`, no native code) with resolved settings.
 *
 * @throws TemporalConnectionError saying where it tried, with which settings, what went wrong and what to check.
 * @throws ConnectionConfigError when a certificate file cannot be read.
 */
export async function connectClient(
  settings: ConnectionSettings,
  options: ConnectClientOptions = {},
): Promise<Connection> {
  const connectOptions = toConnectOptions(settings);
  try {
    return await Connection.connect({
      ...connectOptions,
      ...(options.connectTimeoutMs !== undefined ? { connectTimeout: options.connectTimeoutMs } : {}),
    });
  } catch (error) {
    throw await connectionFailure(settings, connectOptions, error);
  }
}
