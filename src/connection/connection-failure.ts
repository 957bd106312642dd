import type { ConnectionSettings } from './connection-options.js';
import { describeOrigin } from './describe-connection.js';
import { diagnoseConnectFailure } from './diagnose-connection.js';
import { TemporalConnectionError } from './errors/temporal-connection-error.js';
import type { ConnectOptions } from './to-connect-options.js';

/** A failed connect as a {@link TemporalConnectionError}: the settings used, and the diagnosis of the failure. */
export async function connectionFailure(
  settings: ConnectionSettings,
  options: ConnectOptions,
  error: unknown,
): Promise<TemporalConnectionError> {
  const { problem, advice } = await diagnoseConnectFailure(settings, options, error);
  return new TemporalConnectionError(
    { address: settings.address, namespace: settings.namespace, origin: describeOrigin(settings), problem, advice },
    { cause: error },
  );
}
