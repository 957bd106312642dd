import { upsertMemo } from '@temporalio/workflow';
import { FINAL_RECORD_MEMO_KEY, MAX_FINAL_RECORD_BYTES, finalRunRecord } from '../src/protocol/index.js';
import type { AgentRunState } from './run-state.js';

/**
 * Records the run's final event log and state in its memo, once, as the run ends (completed, failed or cancelled):
 * a client then reads `events()` and `state()` of the finished run from Temporal with no worker up. The events are
 * those the event query answers (same `seq`, `at`, approval tokens), which the history alone cannot rebuild; and
 * the message count plus the last step's unsent tool message, which the client's transcript rebuild lacks; and, for
 * a run with a stream, where those events sit in it, so a watcher reads the rest of a finished run's stream too.
 *
 * `upsertMemo` only adds a command to the activation that ends the run, so it needs no non-cancellable scope: a
 * cancelled run's record goes out with its cancellation. Runs on earlier protocols (v0.1.0–v0.3.0) record none: their
 * histories have no such command.
 */
export function recordFinalEvents(state: AgentRunState): void {
  if (state.protocol < 4) return;
  const transcript = {
    messageCount: state.messages.length,
    ...(state.unsentDelta ? { delta: state.unsentDelta } : {}),
  };
  const events = state.events.all();
  const stream = state.stream?.finalRecord(events);
  const record = finalRunRecord(events, state.snapshot(), MAX_FINAL_RECORD_BYTES, transcript, stream);
  upsertMemo({ [FINAL_RECORD_MEMO_KEY]: record });
}
