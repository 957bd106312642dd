// The Temporal runtime of a worker process, with its metrics exposed for Prometheus when the environment asks.
import { Runtime, type RuntimeOptions } from '@temporalio/worker';
import { TelemetryConfigError } from './telemetry-config-error.js';

type Env = Record<string, string | undefined>;

/** Environment variable naming the `host:port` where the worker serves Prometheus metrics at `/metrics`. */
export const PROMETHEUS_ADDRESS_ENV = 'DURABLE_AGENT_PROMETHEUS_BIND_ADDRESS';

/**
 * Installs the process's Temporal runtime. With `DURABLE_AGENT_PROMETHEUS_BIND_ADDRESS=0.0.0.0:9464` the worker's
 * own metrics (task latencies, schedule-to-start, slots, polls, activity and workflow outcomes, sticky cache) are
 * served for scraping at `http://<host>:9464/metrics`. `options` are passed through (logger, shutdown signals, …).
 * Must run before the first connection or worker: the runtime is a per-process singleton.
 *
 * @throws TelemetryConfigError for a malformed address, or when a runtime is already installed and metrics were
 * asked for (they could not take effect).
 */
export function installRuntimeFromEnv(options: RuntimeOptions = {}, env: Env = process.env): Runtime {
  const bindAddress = env[PROMETHEUS_ADDRESS_ENV]?.trim() || undefined;
  if (bindAddress !== undefined && !/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/.test(bindAddress)) {
    throw new TelemetryConfigError(
      PROMETHEUS_ADDRESS_ENV,
      `${PROMETHEUS_ADDRESS_ENV}=${bindAddress} is not a host:port address: use for example 0.0.0.0:9464.`,
    );
  }
  if (Runtime._instance !== undefined) {
    if (bindAddress === undefined) return Runtime._instance;
    throw new TelemetryConfigError(
      PROMETHEUS_ADDRESS_ENV,
      `${PROMETHEUS_ADDRESS_ENV} is set, but the Temporal runtime was already installed without it: call ` +
        'installRuntimeFromEnv() before connecting to Temporal or creating a worker.',
    );
  }
  return Runtime.install({
    ...options,
    ...(bindAddress !== undefined
      ? { telemetryOptions: { ...options.telemetryOptions, metrics: { prometheus: { bindAddress } } } }
      : {}),
  });
}
