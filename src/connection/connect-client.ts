import { setTimeout as delay } from 'node:timers/promises';
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
  // gRPC retries a refused connection until the connect timeout, and a pending Connection.connect() keeps the
  // process alive that long even once we gave up on it; a plain TCP connect tells at once. So the probe goes first,
  // and gRPC starts only when the probe has not seen a refusal within a moment (a remote one may take longer: then
  // the race below still fails fast, though the process may linger until the connect timeout).
  const refused = nothingListens(settings.address);
  try {
    const early = await Promise.race([refused, delay(PROBE_HEAD_START_MS).then(() => false)]);
    if (early) throw new Error(`Connection refused at ${settings.address}`);
    const connecting = Connection.connect({
      ...connectOptions,
      ...(options.connectTimeoutMs !== undefined ? { connectTimeout: options.connectTimeoutMs } : {}),
    });
    const refusal = refused.then(async (nobody) => (nobody ? REFUSED : await connecting));
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

/** How long gRPC waits for the TCP probe: a local refusal comes back in a millisecond or two. */
const PROBE_HEAD_START_MS = 250;

const REFUSED = Symbol('refused');
