import { Context } from '@temporalio/activity';

/**
 * Heartbeats the current activity at a fraction of its heartbeat timeout until stopped, so cancellation reaches
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
  beat();
  if (!timeout) return { beat, stop: () => undefined };
  const timer = setInterval(beat, Math.max(100, Math.floor(timeout / 3)));
  timer.unref?.();
  return { beat, stop: () => clearInterval(timer) };
}
