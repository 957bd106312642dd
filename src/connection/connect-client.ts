import { Connection } from '@temporalio/client';
import type { ConnectionSettings } from './connection-options.js';
import { connectionFailure } from './connection-failure.js';
import { nothingListens } from './diagnose-connection.js';
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
  const connecting = Connection.connect({
    ...connectOptions,
    ...(options.connectTimeoutMs !== undefined ? { connectTimeout: options.connectTimeoutMs } : {}),
  });
  try {
    // gRPC retries a refused connection until the connect timeout; a plain TCP connect tells at once.
    const refusal = nothingListens(settings.address).then(async (refused) => (refused ? REFUSED : await connecting));
    const first = await Promise.race([connecting, refusal]);
    if (first === REFUSED) {
      // The SDK keeps trying until its own timeout; close whatever it ends with.
      connecting.then(
        (connection) => connection.close(),
        () => undefined,
      );
      throw new Error(`Connection refused at ${settings.address}`);
    }
    return first;
  } catch (error) {
    throw await connectionFailure(settings, connectOptions, error);
  }
}

const REFUSED = Symbol('refused');
