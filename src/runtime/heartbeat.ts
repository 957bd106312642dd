import { Context } from '@temporalio/activity';

/**
 * Heartbeats the current activity at a fraction of its heartbeat timeout (at most 1 s apart) until stopped, so cancellation reaches
 * a long model call or tool and a dead worker is noticed. `details` is sent with each beat (the latest
 * checkpoint of a streaming tool). Stop it in `finally`; a heartbeat failure never hides the real result.
 */
export function startHeartbeating(details: () => unknown = () => undefined): { beat(): void; stop(): void } {
  const ctx = Context.current();
  const timeout = ctx.info.heartbeatTimeoutMs;
  const beat = () => {
    try {
      ctx.heartbeat(details());
    } catch {
      // The activity is finishing or cancelled; its own result or error is what matters.
    }
  };
  // No beat at once: a short activity (most model calls and tools) finishes without a heartbeat RPC. The
  // server keeps the previous attempt's details until the first beat, so a resumed checkpoint is not lost.
  if (!timeout) return { beat, stop: () => undefined };
  // Cancellation reaches an activity only in a heartbeat's response, so beat at least every second: a cancelled
  // run should not wait a third of the heartbeat timeout for a model call to be aborted.
  const timer = setInterval(beat, Math.max(100, Math.min(1_000, Math.floor(timeout / 3))));
  timer.unref?.();
  return { beat, stop: () => clearInterval(timer) };
}
