// Worker side only: NativeConnection loads the Temporal core (native code), which a client must not pull in.
import { NativeConnection } from '@temporalio/worker';
import type { ConnectionSettings } from './connection-options.js';
import { connectionFailure } from './connection-failure.js';
import { toConnectOptions } from './to-connect-options.js';

/**
 * Opens a worker connection (`NativeConnection`) with resolved settings.
 *
 * @throws TemporalConnectionError saying where it tried, with which settings, what went wrong and what to check.
 * @throws ConnectionConfigError when a certificate file cannot be read.
 */
export async function connectWorker(settings: ConnectionSettings): Promise<NativeConnection> {
  const connectOptions = toConnectOptions(settings);
  try {
    return await NativeConnection.connect(connectOptions);
  } catch (error) {
    throw await connectionFailure(settings, connectOptions, error);
  }
}
