import { ApplicationFailure } from '@temporalio/workflow';
import type { Refusal } from '../src/protocol/index.js';

/**
 * A refusal as the failure the client receives: its `type` is the refusal's code, which the client exposes as
 * `RunRequestRejectedError.code`. Thrown from a validator it records nothing; thrown from a handler (after the
 * validator accepted) it completes the update with that failure.
 */
export function refusal({ code, message }: Refusal): ApplicationFailure {
  return ApplicationFailure.create({ type: code, message, nonRetryable: true });
}

/** An update validator's verdict: nothing when accepted, the refusal's failure otherwise. */
export function refuse(why: Refusal | undefined): void {
  if (why) throw refusal(why);
}
