// Temporal's worker runtime logs at INFO by default: every worker state change and the workflow bundler's full
// webpack statistics, which bury what a person starting a worker needs to see. Unless the process installed its own
// runtime, ours logs warnings and errors only; DURABLE_AGENT_LOG_LEVEL turns the rest back on.
import { DefaultLogger, type LogLevel, Runtime } from '@temporalio/worker';
import { installRuntimeFromEnv } from '../telemetry/worker-runtime.js';

/** Environment variable with the level of Temporal's worker logs: `TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR`. */
export const LOG_LEVEL_ENV = 'DURABLE_AGENT_LOG_LEVEL';

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** The level {@link LOG_LEVEL_ENV} names, else `WARN`. */
export function workerLogLevel(env: Record<string, string | undefined> = process.env): LogLevel {
  const level = env[LOG_LEVEL_ENV]?.trim().toUpperCase() as LogLevel | undefined;
  return level && LEVELS.includes(level) ? level : 'WARN';
}

/**
 * Installs the process's Temporal runtime with a logger at {@link workerLogLevel} (and metrics from the environment,
 * see `installRuntimeFromEnv`), unless one is installed already. Call before the first connection or worker.
 */
export function installQuietRuntime(env: Record<string, string | undefined> = process.env): void {
  if (Runtime._instance !== undefined) return;
  installRuntimeFromEnv({ logger: new DefaultLogger(workerLogLevel(env)) }, env);
}
