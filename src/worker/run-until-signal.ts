// Runs a worker until the process is asked to stop, draining instead of dropping work: on SIGTERM or SIGINT the
// worker stops polling and lets running activities finish within its shutdown grace time (see
// `AGENT_WORKER_DEFAULTS`), so a tool interrupted by a deploy does not run again on the next worker.
import { constants } from 'node:os';
import type { Worker } from '@temporalio/worker';

/** Options of {@link runUntilSignal}. */
export interface RunUntilSignalOptions {
  /** Default `['SIGTERM', 'SIGINT']`. */
  signals?: NodeJS.Signals[];
  /** Where progress messages go. Default: stderr. */
  log?: (message: string) => void;
  /** Called on a second signal, to stop at once. Default: `process.exit(128 + signal number)`. */
  exitNow?: (code: number) => void;
}

/**
 * `worker.run()` with graceful shutdown. The first signal starts the drain: no new tasks are taken, running
 * activities get the worker's `shutdownGraceTime` to finish (then their abort signal fires), and after
 * `shutdownForceTime` the run fails with Temporal's `GracefulShutdownPeriodExpiredError`. A second signal stops
 * the process at once: activities still running are retried elsewhere once their heartbeat timeout passes.
 */
export async function runUntilSignal(worker: Worker, options: RunUntilSignalOptions = {}): Promise<void> {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const exitNow = options.exitNow ?? ((code: number) => process.exit(code));
  let draining = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      log(`${signal} again: stopping now; unfinished activities run again elsewhere after their heartbeat timeout.`);
      exitNow(128 + (constants.signals[signal] ?? 0));
      return;
    }
    draining = true;
    const { shutdownGraceTimeMs, shutdownForceTimeMs, taskQueue } = worker.options;
    const force = shutdownForceTimeMs !== undefined ? `, the worker stops within ${seconds(shutdownForceTimeMs)}` : '';
    log(
      `${signal}: draining task queue '${taskQueue}': running activities have ${seconds(shutdownGraceTimeMs)} to ` +
        `finish${force}. Send ${signal} again to stop now.`,
    );
    // Temporal's runtime may have started the shutdown already on the same signal.
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  for (const signal of signals) process.on(signal, onSignal);
  try {
    await worker.run();
    if (draining) log('worker drained and stopped.');
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
